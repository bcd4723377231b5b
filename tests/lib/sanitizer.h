/* Which sanitizer this test (and so the daemon, built alike) runs under. Their allocators keep
 * freed memory resident (AddressSanitizer's quarantine) or add shadow memory in proportion to
 * what is used (ThreadSanitizer), so a memory bound is not checked under them: LeakSanitizer's
 * report at the daemon's exit is the leak check there. */
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define RD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RD_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define RD_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RD_TSAN 1
#endif
#endif

#if defined(RD_ASAN) || defined(RD_TSAN)
#define RD_RSS_UNRELIABLE 1
#endif

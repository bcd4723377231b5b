# Package lists and an installer, sourced by setup.sh and test.sh. Installs only what is missing.

# Needed to build and run readerd, and to build its .deb (debhelper: scripts/package.sh).
READERD_BUILD_PKGS="build-essential pkg-config meson ninja-build libuv1-dev libxml2-dev libxml2-utils
libmagic-dev libuchardet-dev libglib2.0-dev libjson-glib-dev libpoppler-glib-dev libgdk-pixbuf-2.0-dev
webp-pixbuf-loader libpng-dev libjpeg-dev zlib1g-dev libcairo2-dev librsvg2-common check python3
libgit2-dev libarchive-dev libcurl4-openssl-dev libsystemd-dev debhelper"

# Real files written by other people, used by the tests (see tests/README.md).
READERD_TEST_PKGS="time golang-1.19-src gdk-pixbuf-tests python-reportlab-doc lomiri-wallpapers-20.04
libtasn1-doc shared-mime-info qpdf poppler-utils libvips-tools"

# Prints the packages of the list that are not installed.
readerd_missing() {
  local p missing=""
  for p in $*; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing="$missing $p"
    fi
  done
  echo $missing
}

# Installs the missing packages of the given lists, with sudo when not root.
readerd_install() {
  local missing sudo=""
  missing=$(readerd_missing "$@")
  [ -z "$missing" ] && return 0
  echo "Installing:$missing" | fmt -w 100
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "error: not root and no sudo; install these packages:$missing" >&2
      return 1
    fi
  fi
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# Installs the npm packages of the repository's Node parts, pinned by their lockfiles: the SDK
# types the formatters are checked against, the MCP SDK client and servers `readerd mcp` is
# tested and measured against, and the VS Code extension. Skipped when already installed.
readerd_npm_install() {
  local dir
  # Debian's nodejs and npm, unless a Node.js with npm is already installed.
  command -v npm >/dev/null 2>&1 || readerd_install nodejs npm
  for dir in tests/sdk-types tests/mcp tests/tokens vscode-client; do
    if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
      echo "npm ci in $dir"
      npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
    fi
  done
}

/* A sample text file for `readerd read`. */
#include <stdio.h>

int main(void) {
  printf("hello from readerd's samples\n");
  return 0;
}

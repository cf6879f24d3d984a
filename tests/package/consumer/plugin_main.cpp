// A program that uses tseq only through the consumer's shared library.
#include <cstdio>

#include "plugin.hpp"

int main() {
  if (consumer_plugin_check() != 0) return 1;
  std::printf("plugin ok\n");
  return 0;
}

#!/usr/bin/env bash
# Prints a graph that adds a 2048x2048 i32 constant (4,194,304 distinct
# elements, element i holds i, written as a hex dense attribute) to its input.
set -euo pipefail
awk 'BEGIN {
  n = 2048 * 2048
  printf "func.func @scale(%%x: !stride.tensor<2048x2048xi32>) -> !stride.tensor<2048x2048xi32> {\n"
  printf "  %%c = stride.constant dense<\"0x"
  for (i = 0; i < n; i++)
    printf "%02X%02X%02X%02X", i % 256, int(i / 256) % 256, int(i / 65536) % 256, int(i / 16777216) % 256
  printf "\"> : tensor<2048x2048xi32> : !stride.tensor<2048x2048xi32>\n"
  printf "  %%r = stride.add %%x, %%c : !stride.tensor<2048x2048xi32>, !stride.tensor<2048x2048xi32> -> !stride.tensor<2048x2048xi32>\n"
  printf "  return %%r : !stride.tensor<2048x2048xi32>\n}\n"
}'

#!/usr/bin/env bash
# Reads fused stride IR and prints, per kernel in program order,
# "kernel NAME: N ops" with N its functional ops (views not counted).
awk '
  /stride\.kernel "/ { match($0, /stride\.kernel "[a-z0-9_]*"/); name = substr($0, RSTART + 15, RLENGTH - 16); n = 0 }
  /= stride\.[a-z_]+ / && !/stride\.kernel/ && !/stride\.(expand|permute|slice|select|unsqueeze|squeeze|reshape|as_strided|view) / { n++ }
  /stride\.yield/ { printf "kernel %s: %d ops\n", name, n }
'

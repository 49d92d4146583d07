#!/usr/bin/env bash
# A test of interest of one's own, for stride-reduce-shapes.test: the graph
# (the last argument, as stride-reduce prints it) is interesting, exit
# status 1, while a stride.add reads a constant of several values through a
# stride.expand.
file=${*: -1}
constant=$(sed -n 's/^ *\(%[0-9]*\) = stride\.constant dense<\[.*/\1/p' "$file")
[[ -n $constant ]] || exit 0
expand=$(sed -n "s/^ *\(%[0-9]*\) = stride\.expand $constant .*/\1/p" "$file")
[[ -n $expand ]] && grep -q "stride\.add [^,]*, $expand :" "$file" && exit 1
exit 0

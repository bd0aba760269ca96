#!/usr/bin/env bash
# help-diff.sh OLD NEW: compares `X --help` of every command and subcommand
# of two limbo-analyze binaries (found from the root's help, recursively)
# and prints the differences; exit 1 if any help differs.
set -euo pipefail
old=$1 new=$2
status=0
count=0
subcommands() { # the commands listed under "Available Commands:" of "$@ --help"
	"$old" "$@" --help | awk '/^Available Commands:/{on=1; next} on && /^$/{on=0} on {print $1}'
}
check() {
	count=$((count + 1))
	if ! diff -u <("$old" "$@" --help 2>&1) <("$new" "$@" --help 2>&1) >/tmp/help-diff.$$; then
		echo "== limbo-analyze $* --help differs"
		cat /tmp/help-diff.$$
		status=1
	fi
	local c
	for c in $(subcommands "$@"); do
		check "$@" "$c"
	done
}
check
rm -f /tmp/help-diff.$$
echo "$count help pages compared" >&2
exit $status

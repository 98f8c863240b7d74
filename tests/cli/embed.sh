# tools/embed.c, which compiles the flame graph's script into yardstick:
# the generated array holds the file's bytes and a NUL; bad input fails
# with a message naming the file and leaves the output as it was.
. "$(dirname "$0")/lib.sh"
EMBED=${EMBED:?EMBED must name the embed tool}
export EMBED

printf 'a\\"\n\tz\377' >"$T/in"
t "embeds a file" "$EMBED" sym "$T/in" "$T/out.c"
cat >"$T/main.c" <<'EOC'
#include <stdio.h>
#include <string.h>
extern const char sym[];
int main(void)
{
	fwrite(sym, 1, strlen(sym), stdout);
	return 0;
}
EOC
t "... as a C array of its bytes and a NUL" sh -c '
	cc -Wall -Wextra -Wconversion -pedantic -Werror -o "$T/main" "$T/main.c" "$T/out.c" &&
	"$T/main" >"$T/back" && cmp "$T/in" "$T/back"'
: >"$T/empty"
t "an empty file is an empty string" sh -c '
	"$EMBED" sym "$T/empty" "$T/out.c" &&
	cc -o "$T/main" "$T/main.c" "$T/out.c" && [ -z "$("$T/main")" ]'

echo keep >"$T/kept.c"
printf 'a\000b' >"$T/nul"
t "a NUL byte is refused" expect_exit 1 "$EMBED" sym "$T/nul" "$T/kept.c"
t "... naming the file" has "$T/stderr" "cannot embed '$T/nul': holds a NUL byte"
t "... the output is left as it was" sh -c '[ "$(cat "$T/kept.c")" = keep ] &&
	[ ! -e "$T/kept.c.tmp" ]'
t "a missing input fails" expect_exit 1 "$EMBED" sym "$T/nope" "$T/kept.c"
t "... naming it" has "$T/stderr" "cannot read '$T/nope'"
t "a symbol that is no C identifier is refused" \
	expect_exit 1 "$EMBED" 1x "$T/in" "$T/kept.c"
t "an unwritable output fails" \
	expect_exit 1 "$EMBED" sym "$T/in" "$T/no/such/dir/out.c"
t "... naming it" has "$T/stderr" "cannot write '$T/no/such/dir/out.c'"
t "usage" expect_exit 1 "$EMBED" sym "$T/in"
finish

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <ucontext.h>
#include <sys/mman.h>
static size_t use;
static ucontext_t mainc, coc;
static long sink;
static void *(*volatile mal)(size_t) = malloc;
static void (*volatile fre)(void *) = free;
static void deep(size_t left)
{
	volatile char pad[512];
	memset((char *)pad, 1, sizeof pad);
	if (left > 512) { deep(left - 512); sink += pad[1]; return; }
	for (int i = 0; i < 2000; i++) {
		void *p = mal(100 + i);
		sink += (long)(uintptr_t)p & 1;
		fre(p);
	}
}
static void body(void) { deep(use); }
int main(int argc, char **argv)
{
	use = strtoul(argv[1], 0, 0);
	size_t ss = argc > 2 ? strtoul(argv[2], 0, 0) : 65536;
	char *stk = mmap(0, ss + 65536, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0); mprotect(stk, 65536, PROT_NONE); stk += 65536;
	getcontext(&coc);
	coc.uc_stack.ss_sp = stk; coc.uc_stack.ss_size = ss; coc.uc_link = &mainc;
	makecontext(&coc, body, 0);
	swapcontext(&mainc, &coc);
	printf("ok %zu\n", use);
	return 0;
}

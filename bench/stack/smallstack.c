#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdint.h>
static size_t use;
static void *deep(size_t left)
{
	volatile char pad[512];
	memset((char *)pad, 1, sizeof pad);
	if (left > 512)
		return deep(left - 512);
	void *p = malloc(100);
	free(p);
	p = malloc(5000);
	return (void *)(uintptr_t)(pad[3] + (p != NULL));
}
static void *body(void *a) { (void)a; for (int i = 0; i < 2000; i++) deep(use); return NULL; }
int main(int argc, char **argv)
{
	pthread_attr_t at; pthread_t th;
	use = strtoul(argv[1], 0, 0);
	size_t ss = argc > 2 ? strtoul(argv[2], 0, 0) : PTHREAD_STACK_MIN;
	pthread_attr_init(&at);
	int e = pthread_attr_setstacksize(&at, ss);
	if (e) { printf("setstacksize %s\n", strerror(e)); return 2; }
	e = pthread_create(&th, &at, body, NULL);
	if (e) { printf("create %s\n", strerror(e)); return 3; }
	pthread_join(th, NULL);
	printf("ok %zu\n", use);
	return 0;
}

/*
 * Seeds of fuzz_heap_stream from a real run: runs a program under the heap
 * agent with a segment and socket of its own (as collect.c does, every
 * chunk through the socket: ring 1), and writes what came as that
 * target's script (fuzz_heap_stream.c): the socket's chunks, by turns as
 * messages and as chunks handed over in a ring, its maps texts as
 * messages, then each slot's chunk being filled, the header's image count
 * and the images. Not built by meson (a tool run by hand):
 *
 *   cc -std=gnu11 -D_GNU_SOURCE -Isrc -o /tmp/seed tests/fuzz/seed_heap_stream.c
 *   /tmp/seed build/libyardstick-heap.so OUT FLAGS PROGRAM ARGS...
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "heap/protocol.h"

static void put(FILE *f, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		fputc((int)(v >> (8 * i)) & 0xff, f);
}

int main(int argc, char **argv)
{
	struct heap_header *h;
	int shm, ro, sv[2];
	struct stat st, sst;
	char env[256], pre[4096], path[64];
	char *buf = NULL;
	size_t len = 0, cap = 0, at = 0;
	unsigned nchunk = 0;
	pid_t pid;
	FILE *out;

	if (argc < 5) {
		fprintf(stderr, "usage: seed AGENT OUT FLAGS PROGRAM ARGS...\n");
		return 2;
	}
	shm = memfd_create("seed", 0);
	if (shm < 0 || ftruncate(shm, sizeof(*h)))
		return 1;
	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
	if (h == MAP_FAILED ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 1;
	h->magic = HEAP_MAGIC;
	h->version = HEAP_VERSION;
	h->unwind = HEAP_UNWIND_FP;
	h->max_depth = 16;
	h->ring = 1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", shm);
	ro = open(path, O_RDONLY);
	if (ro < 0 || fstat(ro, &st) || fstat(sv[1], &sst))
		return 1;
	pid = fork();
	if (pid == 0) {
		dup2(ro, 1000);
		dup2(sv[1], 1001);
		snprintf(env, sizeof(env), "%s=1000,1001,%llu,%llu,seed-none",
			 HEAP_ENV, (unsigned long long)st.st_ino,
			 (unsigned long long)sst.st_ino);
		snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", argv[1]);
		putenv(env);
		putenv(pre);
		execv(argv[4], argv + 4);
		_exit(127);
	}
	close(sv[1]);
	for (;;) {
		ssize_t n;

		if (cap - len < 65536) {
			cap = cap ? 2 * cap : 1 << 20;
			buf = realloc(buf, cap);
		}
		n = read(sv[0], buf + len, cap - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	waitpid(pid, NULL, 0);
	out = fopen(argv[2], "w");
	if (!out)
		return 1;
	put(out, strtoul(argv[3], NULL, 0), 1);
	while (at + sizeof(struct heap_msg_header) <= len) {
		struct heap_msg_header m;

		memcpy(&m, buf + at, sizeof(m));
		at += sizeof(m);
		if (m.type == HEAP_MSG_CHUNK && nchunk++ % 2) {
			put(out, 2, 1);		/* HAND */
			put(out, m.slot, 1);
			put(out, m.seq % HEAP_RING, 1);
			put(out, m.seq, 2);
		} else {
			put(out, 1, 1);		/* MSG */
			put(out, m.type == HEAP_MSG_CHUNK ? 0 : 1, 1);
			put(out, m.slot, 1);
			put(out, m.seq, 2);
		}
		put(out, m.len, 3);
		fwrite(buf + at, 1, m.len, out);
		at += m.len;
		put(out, 5, 1);			/* STEP */
	}
	for (uint32_t i = 0; i < HEAP_SLOTS; i++) {
		struct heap_slot *s = &h->slots[i];

		if (!s->used && !s->seq)
			continue;
		put(out, 3, 1);			/* FILL */
		put(out, i, 1);
		put(out, s->cur, 1);
		put(out, s->seq, 2);
		put(out, 0, 1);
		put(out, s->used, 3);
		fwrite(s->data[s->cur & (HEAP_RING - 1)], 1, s->used, out);
	}
	/* the image count, and each image (15 bytes a poke) */
	put(out, 4, 1);
	put(out, 0, 1);
	put(out, offsetof(struct heap_header, generation), 4);
	put(out, 4, 1);
	put(out, h->generation, 4);
	for (uint32_t g = 1; g <= h->generation && g < 64; g++) {
		const char *img = (const char *)&h->images[g];

		for (size_t o = 0; o < sizeof(h->images[g]); o += 15) {
			size_t n = sizeof(h->images[g]) - o < 15 ?
				   sizeof(h->images[g]) - o : 15;
			size_t k = 0;

			while (k < n && !img[o + k])
				k++;
			if (k == n)
				continue;	/* zeros already */
			put(out, 4, 1);
			put(out, 1, 1);
			put(out, g * sizeof(h->images[g]) + o, 4);
			put(out, n, 1);
			fwrite(img + o, 1, n, out);
		}
	}
	return fclose(out) ? 1 : 0;
}

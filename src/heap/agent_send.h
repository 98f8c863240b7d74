/*
 * The agent's connection to yardstick (included by agent.c only): the
 * socket it writes messages to, found again when the program closed or
 * replaced it (protocol.h), and the shared segment mapped through a
 * descriptor of the agent's own, or received from yardstick when the
 * program closed the one it inherited. System calls only: nothing here
 * allocates.
 */

static bool send_all(const struct iovec *iov, int n)
{
	struct iovec v[2];
	size_t left = 0;

	memcpy(v, iov, n * sizeof(*v));
	for (int i = 0; i < n; i++)
		left += v[i].iov_len;
	while (left) {
		struct msghdr m = { .msg_iov = v, .msg_iovlen = n };
		ssize_t w = sendmsg(sock, &m, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		left -= w;
		while (n && (size_t)w >= v[0].iov_len) {
			w -= v[0].iov_len;
			v[0] = v[1];
			n--;
		}
		if (n) {
			v[0].iov_base = (char *)v[0].iov_base + w;
			v[0].iov_len -= w;
		}
	}
	return true;
}

/* Is sock still ours? (Checked once per message, under send_lock: never
 * write into a file the program opened under the same number.) */
static bool sock_ours(void)
{
	struct stat st;

	return sock >= 0 && !fstat(sock, &st) && st.st_dev == sock_dev &&
	       st.st_ino == sock_ino;
}

/*
 * The program closed or replaced our socket: connect to yardstick again
 * (protocol.h), close-on-exec, at the number we were handed or the
 * lowest free above it if we can. Under send_lock (or before any thread
 * of ours runs). The old descriptor is not ours any more: never closed.
 */
static bool reconnect(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t len = strlen(sock_name);
	struct stat st;
	int fd, hi;

	if (!len || reconnects >= HEAP_RECONNECTS)
		return false;
	reconnects++;
	memcpy(a.sun_path + 1, sock_name, len);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	if (connect(fd, (struct sockaddr *)&a,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				len)) || fstat(fd, &st)) {
		close(fd);
		return false;
	}
	hi = sock_number > 0 ? fcntl(fd, F_DUPFD_CLOEXEC, sock_number) : -1;
	if (hi >= 0) {
		close(fd);
		fd = hi;
	}
	sock = fd;
	sock_dev = st.st_dev;
	sock_ino = st.st_ino;
	return true;
}

/* Our socket, or a new one if the program took it; false: none. */
static bool sock_ready(void)
{
	return sock_ours() || reconnect();
}

static void stop_sending(void)
{
	hdr->stopped = 1;
	atomic_store(&sending, false);
}

/* One message; the caller holds send_lock. */
static bool send_msg(uint32_t type, uint32_t slot, uint64_t seq,
		     const void *data, uint32_t len)
{
	struct heap_msg_header h = { HEAP_MAGIC, type, slot, len, seq, 0 };
	struct iovec v[2] = { { &h, sizeof(h) }, { (void *)data, len } };

	h.check = heap_msg_check(&h, data);
	if (send_all(v, 2))
		return true;
	/* closed or replaced while we sent: what went out is cut short
	 * (yardstick skips it); the whole message again, on a new socket */
	if (reconnect() && send_all(v, 2))
		return true;
	/* yardstick is gone, or the program closed the socket: stop
	 * sending, keep counting */
	stop_sending();
	return false;
}

/* Send /proc/self/maps, read with system calls into memory of our own
 * (the caller holds send_lock, which also guards the buffer), as the text
 * of the image's unloads u (protocol.h). */
static void send_maps(uint32_t u)
{
	static char *buf;
	static size_t cap;
	size_t len = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	for (;;) {
		ssize_t r;

		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 1 << 16;
			void *p = mmap(NULL, ncap, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				break;
			if (buf) {
				memcpy(p, buf, len);
				munmap(buf, cap);
			}
			buf = p;
			cap = ncap;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += r;
	}
	close(fd);
	send_msg(HEAP_MSG_MAPS, 0, (uint64_t)u << 32 | generation, buf, len);
}


/*
 * The segment, read-write, through a descriptor of our own: the one the
 * program inherited is read-only (protocol.h), so that its writes cannot
 * reach the segment. Without /proc, through the inherited one if that is
 * read-write.
 */
static void *map_segment(int shm, unsigned long long ino)
{
	char path[32] = "/proc/self/fd/", digits[12];
	int n = 0, len = 14, fd;
	unsigned v = (unsigned)shm;
	struct stat st;
	void *p;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < (int)sizeof(digits));
	while (n)
		path[len++] = digits[--n];
	path[len] = '\0';
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) ||
			(unsigned long long)st.st_ino != ino)) {
		close(fd);
		return MAP_FAILED;
	}
	p = mmap(NULL, sizeof(*hdr), PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd >= 0 ? fd : shm, 0);
	if (fd >= 0)
		close(fd);
	return p;
}

/*
 * The segment's descriptor from yardstick, over a new connection (it
 * sends it on every connection of the traced process): for an image an
 * image before it closed the descriptor for. -1 if there is none.
 */
static int fetch_segment(unsigned long long ino)
{
	char b, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec v = { &b, 1 };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	struct stat st;
	int fd = -1;

	if (!reconnect())
		return -1;
	while (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) < 0)
		if (errno != EINTR)
			return -1;
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	if (fd >= 0 && (fstat(fd, &st) ||
			(unsigned long long)st.st_ino != ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

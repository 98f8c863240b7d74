/*
 * tiny_httpd: an HTTP/1.1 server that costs less per request than the
 * clients measured against it (bench/load_vs_wrk.sh, SERVER=tiny), so
 * that `yardstick load` and wrk are each measured at their own limit,
 * not at the server's: one thread, epoll, keep-alive, every request
 * answered with the same response (200, a body of BYTES 'x's, or
 * "hello\n"), pipelined requests answered in one write. It reads
 * nothing but the end of each request's head ("\r\n\r\n"): no bodies.
 * With CERT and KEY (PEM files), it speaks TLS (OpenSSL's defaults:
 * TLS 1.3 with a client that offers it).
 *
 *   tiny_httpd PORT [BYTES [CERT KEY]]
 *
 * Listens on 127.0.0.1:PORT until SIGTERM or SIGINT.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#define MAX_FD 65536
#define IN_CAP 16384

struct conn {
	SSL *ssl;		/* NULL: plain http */
	char in[IN_CAP];
	size_t in_len;
	int matched;		/* bytes of "\r\n\r\n" matched so far */
	char *out;		/* what a short write left */
	size_t out_len, out_at;
};

static struct conn *conns[MAX_FD];
static SSL_CTX *tls;

/* Bytes read or written (> 0), 0 at the end, -1 to wait for the socket
 * (*want: EPOLLIN or EPOLLOUT), -2 on an error. */
static ssize_t io(struct conn *c, int fd, char *buf, size_t n, bool wr,
		  unsigned *want)
{
	ssize_t r;
	int e;

	if (!c->ssl) {
		do
			r = wr ? write(fd, buf, n) : read(fd, buf, n);
		while (r < 0 && errno == EINTR);
		*want = wr ? EPOLLOUT : EPOLLIN;
		return r >= 0 ? r : errno == EAGAIN ? -1 : -2;
	}
	ERR_clear_error();
	r = wr ? SSL_write(c->ssl, buf, (int)n) : SSL_read(c->ssl, buf, (int)n);
	if (r > 0)
		return r;
	e = SSL_get_error(c->ssl, (int)r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		*want = e == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT;
		return -1;
	}
	return e == SSL_ERROR_ZERO_RETURN ? 0 : -2;
}
static char *resp;
static size_t resp_len;

static void drop(int ep, int fd)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	close(fd);
	if (conns[fd]) {
		SSL_free(conns[fd]->ssl);
		free(conns[fd]->out);
		free(conns[fd]);
		conns[fd] = NULL;
	}
}

/* Write what is pending; 0, or -1 to drop the connection. */
static int flush_out(int ep, int fd, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	unsigned want = 0;

	while (c->out_at < c->out_len) {
		ssize_t w = io(c, fd, c->out + c->out_at,
			       c->out_len - c->out_at, true, &want);

		if (w == -1) {
			ev.events = EPOLLIN | want;
			return epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
		}
		if (w <= 0)
			return -1;
		c->out_at += (size_t)w;
	}
	c->out_len = c->out_at = 0;
	return epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
}

/* Answer n requests: one write of n responses. */
static int answer(int ep, int fd, struct conn *c, size_t n)
{
	size_t need = n * resp_len, at;
	char *buf;

	if (c->out_len) {	/* still writing: queue behind it */
		buf = realloc(c->out, c->out_len + need);
		if (!buf)
			return -1;
		c->out = buf;
		at = c->out_len;
		c->out_len += need;
	} else {
		if (n == 1) {
			unsigned want;
			ssize_t w = io(c, fd, resp, resp_len, true, &want);

			if (w == (ssize_t)resp_len)
				return 0;
			if (w == 0 || w == -2)
				return -1;
			at = w > 0 ? (size_t)w : 0;
			free(c->out);
			c->out = malloc(resp_len - at);
			if (!c->out)
				return -1;
			memcpy(c->out, resp + at, resp_len - at);
			c->out_len = resp_len - at;
			c->out_at = 0;
			return flush_out(ep, fd, c);
		}
		free(c->out);
		c->out = malloc(need);
		if (!c->out)
			return -1;
		c->out_len = need;
		c->out_at = 0;
		at = 0;
	}
	for (size_t k = 0; k < n; k++)
		memcpy(c->out + at + k * resp_len, resp, resp_len);
	return flush_out(ep, fd, c);
}

static int on_input(int ep, int fd, struct conn *c)
{
	static const char end[] = "\r\n\r\n";

	for (;;) {
		unsigned want;
		ssize_t got = io(c, fd, c->in, IN_CAP, false, &want);
		size_t n = 0;

		if (got == -1 && want == EPOLLOUT && !c->out_len) {
			/* a TLS handshake's write: wait for room */
			struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT,
						  .data.fd = fd };

			return epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
		}
		if (got == -1)
			return 0;
		if (got <= 0)
			return -1;
		for (ssize_t i = 0; i < got; i++) {
			if (c->in[i] == end[c->matched])
				c->matched++;
			else
				c->matched = c->in[i] == '\r';
			if (c->matched == 4) {
				n++;
				c->matched = 0;
			}
		}
		if (n && answer(ep, fd, c, n))
			return -1;
		if (got < IN_CAP && !c->ssl)
			return 0;
	}
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	size_t body;
	int ls, ep, one = 1;
	struct epoll_event ev = { .events = EPOLLIN };
	struct sigaction sa = { .sa_handler = on_signal };

	if (argc != 2 && argc != 3 && argc != 5) {
		fprintf(stderr, "usage: tiny_httpd PORT [BYTES [CERT KEY]]\n");
		return 2;
	}
	if (argc == 5) {
		tls = SSL_CTX_new(TLS_server_method());
		if (!tls ||
		    SSL_CTX_use_certificate_chain_file(tls, argv[3]) != 1 ||
		    SSL_CTX_use_PrivateKey_file(tls, argv[4],
						SSL_FILETYPE_PEM) != 1) {
			fprintf(stderr, "tiny_httpd: cannot load '%s' and "
				"'%s'\n", argv[3], argv[4]);
			return 1;
		}
		SSL_CTX_set_mode(tls, SSL_MODE_ENABLE_PARTIAL_WRITE |
				 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	}
	body = argc > 2 ? strtoul(argv[2], NULL, 10) : 6;
	resp = malloc(body + 128);
	if (!resp)
		return 1;
	resp_len = (size_t)sprintf(resp, "HTTP/1.1 200 OK\r\nContent-Type: "
				   "text/plain\r\nContent-Length: %zu\r\n\r\n",
				   body);
	if (argc > 2)
		memset(resp + resp_len, 'x', body);
	else
		memcpy(resp + resp_len, "hello\n", 6);
	resp_len += body;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(ls, 4096)) {
		perror("tiny_httpd: listen");
		return 1;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = ls;
	epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
	while (!stop) {
		struct epoll_event evs[256];
		int n = epoll_wait(ep, evs, 256, -1);

		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			struct conn *c;

			if (fd == ls) {
				int cfd;

				while ((cfd = accept4(ls, NULL, NULL,
						      SOCK_NONBLOCK |
						      SOCK_CLOEXEC)) >= 0) {
					struct epoll_event ce = {
						.events = EPOLLIN,
						.data.fd = cfd };

					if (cfd >= MAX_FD) {
						close(cfd);
						continue;
					}
					setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY,
						   &one, sizeof(one));
					conns[cfd] = calloc(1, sizeof(struct conn));
					if (conns[cfd] && tls) {
						conns[cfd]->ssl = SSL_new(tls);
						if (conns[cfd]->ssl) {
							SSL_set_fd(conns[cfd]->ssl, cfd);
							SSL_set_accept_state(conns[cfd]->ssl);
						}
					}
					if (!conns[cfd] || (tls && !conns[cfd]->ssl) ||
					    epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ce))
						drop(ep, cfd);
				}
				continue;
			}
			c = conns[fd];
			if (!c)
				continue;
			if (evs[i].events & (EPOLLERR | EPOLLHUP)) {
				drop(ep, fd);
				continue;
			}
			if ((evs[i].events & EPOLLOUT) && flush_out(ep, fd, c)) {
				drop(ep, fd);
				continue;
			}
			if ((evs[i].events & EPOLLIN) && on_input(ep, fd, c))
				drop(ep, fd);
		}
	}
	return 0;
}

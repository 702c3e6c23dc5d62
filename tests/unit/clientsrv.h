/* clientsrv.h: a fake profd for the client's unit tests: a thread
 * answering canned replies on a temporary Unix socket, keeping what it saw
 * of the last request, and a way to run a command with its output caught.
 * Header-only, as testlib.h. */
#ifndef PROFCTL_CLIENTSRV_H
#define PROFCTL_CLIENTSRV_H

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "alloc.h"
#include "clienttest.h"

static char	 dir[] = "/tmp/profctl-test-XXXXXX";
static char	 sock[256];

/* How the fake server answers. */
#define SRV_CLOSE	0	/* read the request, answer, close */
#define SRV_LINGER	1	/* ... but close only after the client did */
#define SRV_RESET	2	/* answer before reading the request and close
				   with it unread: the client sees the reply,
				   then ECONNRESET */

/* What the fake server saw of the last request, and what it answers. */
static struct {
	int		 fd;
	const char	*reply;		/* the whole HTTP response */
	size_t		 reply_len;	/* 0: strlen(reply) */
	int		 mode;		/* SRV_* */
	size_t		 step;		/* send the reply this many bytes at a
					   time, 0: at once */
	char		 line[2048];	/* request line */
	char		 head[65536];	/* request line and headers */
	char		*body;
	size_t		 len;
	int		 n;		/* requests served */
} srv;

static inline void
read_request(int c)
{
	char	 buf[65536], *end, *cl, *nl;
	size_t	 n = 0, want;
	ssize_t	 r;

	for (;;) {
		assert(n < sizeof buf - 1);
		r = read(c, buf + n, sizeof buf - 1 - n);
		assert(r > 0);
		n += (size_t)r;
		buf[n] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL)
			break;
	}
	nl = strstr(buf, "\r\n");
	snprintf(srv.line, sizeof srv.line, "%.*s", (int)(nl - buf), buf);
	snprintf(srv.head, sizeof srv.head, "%.*s", (int)(end + 4 - buf),
	    buf);
	want = 0;
	if ((cl = strcasestr(buf, "\r\nContent-Length:")) != NULL && cl < end)
		want = strtoul(cl + 17, NULL, 10);
	assert(strcasestr(buf, "\r\nExpect:") == NULL || strcasestr(buf,
	    "\r\nExpect:") > end);
	free(srv.body);
	srv.body = xmalloc(want + 1);
	srv.len = n - (size_t)(end + 4 - buf);
	memcpy(srv.body, end + 4, srv.len);
	while (srv.len < want) {
		r = read(c, srv.body + srv.len, want - srv.len);
		assert(r > 0);
		srv.len += (size_t)r;
	}
	srv.body[srv.len] = '\0';
}

/* Wait until the request's headers are there, leaving them unread. */
static inline void
peek_request(int c)
{
	char	 buf[4096];
	ssize_t	 r;

	for (;;) {
		r = recv(c, buf, sizeof buf - 1, MSG_PEEK);
		assert(r > 0);
		buf[r] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL)
			return;
		usleep(1000);
	}
}

static inline void *
serve(void *arg)
{
	char	 buf[4096];
	size_t	 len, off, n;
	int	 c;

	while ((c = accept(srv.fd, NULL, NULL)) != -1) {
		if (srv.mode == SRV_RESET)
			peek_request(c);
		else
			read_request(c);
		/* A client that gave up on this connection is judged by
		 * what it returned or printed, not here. */
		len = srv.reply_len != 0 ? srv.reply_len : strlen(srv.reply);
		for (off = 0; off < len; off += n) {
			n = srv.step != 0 && srv.step < len - off ? srv.step :
			    len - off;
			if (send(c, srv.reply + off, n, MSG_NOSIGNAL) !=
			    (ssize_t)n)
				break;
			if (srv.step != 0)
				usleep(20);
		}
		if (srv.mode == SRV_LINGER) {
			while (read(c, buf, sizeof buf) > 0)
				;
		}
		close(c);
		__atomic_add_fetch(&srv.n, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static inline char *
json_reply(int status, const char *reason, const char *json)
{
	char	*r;

	xasprintf(&r, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", status,
	    reason, strlen(json), json);
	return r;
}

/* Run fn with stdout and stderr going to strings. */
struct captured {
	char	*out, *err;
	int	 rc;
};

static inline char *
slurp_fd(int fd)
{
	char	*p;
	off_t	 n;

	n = lseek(fd, 0, SEEK_END);
	lseek(fd, 0, SEEK_SET);
	p = xmalloc((size_t)n + 1);
	assert(read(fd, p, (size_t)n) == n);
	p[n] = '\0';
	return p;
}

static inline struct captured
run_cmd(const struct cmd_entry *e, struct client *c, int argc, char **argv)
{
	struct captured	 r;
	char		 o[] = "/tmp/profctl-out-XXXXXX";
	char		 er[] = "/tmp/profctl-err-XXXXXX";
	int		 fo, fe, so, se;

	fflush(stdout);
	fflush(stderr);
	assert((fo = mkstemp(o)) != -1 && (fe = mkstemp(er)) != -1);
	so = dup(1);
	se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	r.rc = e->exec(c, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	r.out = slurp_fd(fo);
	r.err = slurp_fd(fe);
	close(fo);
	close(fe);
	unlink(o);
	unlink(er);
	return r;
}

static inline void
make_sun(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	assert(strlen(path) < sizeof sun->sun_path);
	memcpy(sun->sun_path, path, strlen(path) + 1);
}

static pthread_t	 srv_thread;

/* Until the server is done with the connection after the first before
 * requests: a client may give up on a reply while the server is still
 * sending it, and the reply must not be freed under it. */
static inline void
srv_wait(int before)
{
	while (__atomic_load_n(&srv.n, __ATOMIC_ACQUIRE) <= before)
		usleep(100);
}

/* A temporary directory and the fake profd listening in it. */
static inline void
srv_start(void)
{
	struct sockaddr_un	 sun;

	assert(mkdtemp(dir) != NULL);
	snprintf(sock, sizeof sock, "%s/profd.sock", dir);
	make_sun(&sun, sock);
	assert((srv.fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	assert(bind(srv.fd, (struct sockaddr *)&sun, sizeof sun) == 0);
	assert(listen(srv.fd, 8) == 0);
	assert(pthread_create(&srv_thread, NULL, serve, NULL) == 0);
}

static inline void
srv_stop(void)
{
	shutdown(srv.fd, SHUT_RDWR);
	close(srv.fd);
	pthread_join(srv_thread, NULL);
	free(srv.body);
	srv.body = NULL;
	unlink(sock);
	assert(rmdir(dir) == 0);
}

#endif

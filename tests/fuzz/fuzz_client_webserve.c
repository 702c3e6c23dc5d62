/* fuzz_client_webserve.c: profctl web's request reader and checks
 * (client/webhead.c, client/webserve.c) on whatever a browser, or anything
 * else that reaches the port, sends.  The input is written to one end of
 * a socketpair, which is then shut for writing; the other end is read as
 * profctl web reads a connection: its head by webhead_read, as the loop
 * does, then answered by webserve_answer, as a worker does (a head too
 * long is refused with webserve_refuse).  A profd socket that does not exist
 * makes every forwarded request a 502; the token and Host are those of a
 * fixed server, so the dictionary can find them.  Beside not crashing:
 * the reply, if any, starts with a status line. */
#include <sys/socket.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "webserve.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);
time_t __wrap_time(time_t *);

/* The link wraps time() (tests/fuzz/CMakeLists.txt): webserve_linger
 * reads its deadline on a clock that stands still, so the run does not
 * depend on the machine's (libFuzzer learns from the compares); the
 * linger ends where the input does, as it would. */
time_t
__wrap_time(time_t *t)
{
	if (t != NULL)
		*t = 1700000000;
	return 1700000000;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct webserve	 ws = {
		.socket = "/nonexistent/profd.sock",
		.listen_host = "127.0.0.1:8080",
		.port = 8080,
		.token = "0123456789abcdef0123456789abcdef",
		.cookie_name = "profd_token_8080",
		.cookie_value = "8080.0123456789abcdef0123456789abcdef",
	};
	struct webhead		 h;
	enum webhead_state	 st;
	char			 out[256];
	ssize_t			 n;
	int			 sv[2];

	if (size > 200000)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		abort();
	/* The socket's buffer holds the input; what does not fit is cut. */
	(void)fcntl(sv[0], F_SETFL, O_NONBLOCK);
	n = write(sv[0], data, size);
	(void)n;
	shutdown(sv[0], SHUT_WR);
	/* Replies larger than the buffer fail to be written, not block. */
	(void)fcntl(sv[1], F_SETFL, O_NONBLOCK);
	ws.read_only = size > 0 && (data[0] & 1);
	webhead_init(&h);
	/* The writer is shut: never MORE, which would be a loop. */
	if ((st = webhead_read(&h, sv[1])) == WEBHEAD_MORE)
		abort();
	if (st == WEBHEAD_DONE)
		webserve_answer(&ws, sv[1], h.buf, h.len);
	else if (st == WEBHEAD_LONG)
		webserve_refuse(sv[1], 431, "too long");
	webhead_free(&h);
	close(sv[1]);
	n = read(sv[0], out, sizeof out - 1);
	if (n > 0 && strncmp(out, "HTTP/1.1 ", n < 9 ? (size_t)n : 9) != 0)
		abort();
	close(sv[0]);
	return 0;
}

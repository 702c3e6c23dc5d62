/* webserve.h: profctl web's server, shared by cmd-web.c (listening) and
 * the files that serve: webloop.c (the thread that accepts and reads
 * request heads), webhead.c (a head read without blocking), webpool.c (the
 * workers) and webserve.c (a request checked and answered). */
#ifndef PROFCTL_WEBSERVE_H
#define PROFCTL_WEBSERVE_H

#include <stddef.h>

struct webserve {
	const char	*socket;	/* profd's */
	char		 listen_host[80];	/* "127.0.0.1:PORT", as Host */
	int		 port;
	/* The token profctl web prints in its URL: every API call carries
	 * it in WEBSERVE_TOKEN_HEADER (the page keeps it in its origin's
	 * storage, which no other port reads) or in the query. */
	char		 token[33];	/* 32 hex digits */
	/* Cookies ignore ports: a server on another port of this host that
	 * the browser visits is sent this cookie too.  So it admits the
	 * page's files and nothing else, it is not the token (its value is
	 * "PORT." and a secret of its own, its name profd_token_PORT), and
	 * a cookie of another port's profctl web is no use here. */
	char		 cookie_name[32];
	char		 cookie_value[48];
	int		 allow_write;	/* forward deletes and other writes */
	int		 read_only;	/* refuse pushes too */
};

#define WEBSERVE_TOKEN_HEADER	"X-Profd-Token"

#define WEBHEAD_MAX	65536	/* request line and headers, bytes */

/* A request head as far as it came: buf[0..len) (len bytes, no NUL). */
struct webhead {
	char	*buf;
	size_t	 len, cap;
	size_t	 bol;		/* where the line being read starts */
};

enum webhead_state {
	WEBHEAD_MORE,		/* nothing more to read now */
	WEBHEAD_DONE,		/* the blank line that ends the head came */
	WEBHEAD_EOF,		/* the client closed before it */
	WEBHEAD_ERROR,
	WEBHEAD_LONG		/* WEBHEAD_MAX bytes and no end */
};

/* webhead.c: read what a connection has of its head, never blocking. */
void			 webhead_init(struct webhead *);
void			 webhead_free(struct webhead *);
enum webhead_state	 webhead_read(struct webhead *, int);

/* webserve.c: answer a request whose head was read; refuse one early. */
void	webserve_answer(const struct webserve *, int, const char *, size_t);
void	webserve_refuse(int, int, const char *);

/* webpool.c: the workers that answer, and the queue before them. */
struct webpool;
struct webpool	*webpool_new(const struct webserve *, int);
int		 webpool_push(struct webpool *, int, struct webhead *);

/* webloop.c: accept, read heads, hand them over, close. */
int	webloop_run(const struct webserve *, int);

#endif

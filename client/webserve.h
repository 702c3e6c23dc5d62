/* webserve.h: profctl web's server, shared by cmd-web.c (listening) and
 * webserve.c (a connection). */
#ifndef PROFCTL_WEBSERVE_H
#define PROFCTL_WEBSERVE_H

struct webserve {
	const char	*socket;	/* profd's */
	char		 listen_host[80];	/* "127.0.0.1:PORT", as Host */
	int		 port;
	char		 token[33];	/* 32 hex digits */
	char		 cookie_name[32];	/* per port: cookies ignore it */
	int		 allow_write;	/* forward deletes and other writes */
	int		 read_only;	/* refuse pushes too */
};

/* webserve.c: answer one request on fd and close it. */
void	webserve_conn(const struct webserve *, int);

#endif

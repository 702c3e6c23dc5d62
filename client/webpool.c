/* webpool.c: profctl web's workers.  Answering may take long (a push
 * read from the browser, a reply streamed from profd, a query profd is
 * still running), so it happens here, on a few threads, and never on the
 * loop that reads heads (webloop.c).  A request reaches a worker only
 * with its head whole, so an idle or slow client never holds one before
 * its token is checked; after, each read and write is bounded.  The
 * queue before the workers is bounded too: full, the loop answers 503. */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "profctl.h"
#include "webserve.h"

#define WEBPOOL_WORKERS		16
#define WEBPOOL_QUEUE		64	/* heads waiting for a worker */
#define WEBPOOL_IO_TIMEOUT	10	/* s a read or write may wait */

struct webpool_job {
	int		 fd;
	struct webhead	 head;
};

struct webpool {
	const struct webserve	*ws;
	int			 done_fd;	/* answered fds go back */
	pthread_mutex_t		 lock;
	pthread_cond_t		 cond;
	struct webpool_job	 q[WEBPOOL_QUEUE];
	size_t			 first, n;
};

static void
webpool_answer(struct webpool *pool, struct webpool_job *job)
{
	struct timeval	 tv = { WEBPOOL_IO_TIMEOUT, 0 };
	int		 fl;

	/* webserve.c reads and writes as a blocking client does. */
	if ((fl = fcntl(job->fd, F_GETFL)) != -1)
		(void)fcntl(job->fd, F_SETFL, fl & ~O_NONBLOCK);
	(void)setsockopt(job->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	(void)setsockopt(job->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	webserve_answer(pool->ws, job->fd, job->head.buf, job->head.len);
	webhead_free(&job->head);
	/* The loop reads away what the browser may still send, so that the
	 * close is no reset that would hide the reply; a pipe write this
	 * small is whole. */
	if (shutdown(job->fd, SHUT_WR) == -1 ||
	    write(pool->done_fd, &job->fd, sizeof job->fd) !=
	    (ssize_t)sizeof job->fd)
		close(job->fd);
}

static void *
webpool_worker(void *p)
{
	struct webpool		*pool = p;
	struct webpool_job	 job;

	for (;;) {
		pthread_mutex_lock(&pool->lock);
		while (pool->n == 0)
			pthread_cond_wait(&pool->cond, &pool->lock);
		job = pool->q[pool->first];
		pool->first = (pool->first + 1) % WEBPOOL_QUEUE;
		pool->n--;
		pthread_mutex_unlock(&pool->lock);
		webpool_answer(pool, &job);
	}
	return NULL;
}

/* The workers, started; each answered connection's fd is written to
 * done_fd.  They run as long as profctl web does, so there is no
 * webpool_free. */
struct webpool *
webpool_new(const struct webserve *ws, int done_fd)
{
	struct webpool	*pool = xcalloc(1, sizeof *pool);
	pthread_attr_t	 attr;
	pthread_t	 t;
	int		 i, started = 0;

	pool->ws = ws;
	pool->done_fd = done_fd;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->cond, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 0; i < WEBPOOL_WORKERS; i++)
		if (pthread_create(&t, &attr, webpool_worker, pool) == 0)
			started++;
	pthread_attr_destroy(&attr);
	if (started == 0) {
		fprintf(stderr, "profctl web: cannot start a thread\n");
		exit(PROFCTL_EXIT_REFUSED);
	}
	return pool;
}

/* Queue fd and its head (which the pool now owns; *head is emptied).
 * -1 when the queue is full: the caller still has both. */
int
webpool_push(struct webpool *pool, int fd, struct webhead *head)
{
	struct webpool_job	*job;

	pthread_mutex_lock(&pool->lock);
	if (pool->n == WEBPOOL_QUEUE) {
		pthread_mutex_unlock(&pool->lock);
		return -1;
	}
	job = &pool->q[(pool->first + pool->n) % WEBPOOL_QUEUE];
	job->fd = fd;
	job->head = *head;
	webhead_init(head);
	pool->n++;
	pthread_cond_signal(&pool->cond);
	pthread_mutex_unlock(&pool->lock);
	return 0;
}

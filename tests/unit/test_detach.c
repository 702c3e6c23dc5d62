/* test_detach.c: profd detaches only while it is the one thread (a
 * thread started before fork() is absent from the child, and whatever
 * waits for it there hangs: issue 24's detached deadlock).  The count of
 * the process's threads, and the refusal with a message that says why;
 * detach() itself is not called with one thread (it would detach the
 * test): test_start_modes.sh starts profd detached. */
#include <pthread.h>

#include "detach.h"
#include "testlib.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int release;

static void *
idle_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!release)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int
main(void)
{
	struct error err = { 0 };
	pthread_t th;

	CHECK(detach_threads() == 1);
	CHECK(pthread_create(&th, NULL, idle_thread, NULL) == 0);
	CHECK(detach_threads() == 2);
	CHECK(detach(&err) == -1);
	CHECK(HAS(err.msg, "refusing to detach: 2 threads run"));
	CHECK(HAS(err.msg, "--foreground"));
	pthread_mutex_lock(&mu);
	release = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	CHECK(pthread_join(th, NULL) == 0);
	CHECK(detach_threads() == 1);
	printf("test_detach: %u checks passed\n", checks);
	return 0;
}

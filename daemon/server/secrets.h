/* secrets.h: the files profd reads secrets from, and whether every user
 * of the host may read them (secrets.c). */
#ifndef PROFD_SECRETS_H
#define PROFD_SECRETS_H

#include <jansson.h>

#include "config.h"

struct secrets;

struct secrets *secrets_new(void);
void secrets_free(struct secrets *);
/* Look at cfg's files again (at start, on SIGHUP): each that holds a
 * secret and that others may read is logged as a warning and kept for
 * the status, in place of what the last look found. */
void secrets_check(struct secrets *, const struct config *);
/* Its status provider (ctx: the secrets): {"warnings": [{"file",
 * "mode", "holds": [setting, ...]}, ...]}. */
json_t *secrets_status(void *ctx);

#endif

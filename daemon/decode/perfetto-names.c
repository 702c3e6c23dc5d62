/* perfetto-names.c: process and thread names and the sequence's thread,
 * from ProcessTree and Track/Process/ThreadDescriptors, global across
 * sequences, as labels of the samples read after them. */
#include "alloc.h"
#include "buf.h"
#include "hmap.h"
#include "mstr.h"
#include "pb.h"
#include "perfetto-int.h"
#include "perfetto.h"

/* ---- names of processes and threads ---- */

static uint32_t
pft_name_intern(struct pft *d, struct mstr name)
{
	int64_t v;

	if ((v = hmap_get(&d->names, name.p, name.n)) != 0)
		return (uint32_t)v;
	if (d->nnames == d->namecap) {
		d->namecap = d->namecap ? d->namecap * 2 : 64;
		d->namev = xreallocarray(d->namev, d->namecap,
		    sizeof *d->namev);
	}
	d->namev[d->nnames].off = d->namebytes.n;
	d->namev[d->nnames].len = name.n;
	buf_add(&d->namebytes, name.p, name.n);
	d->nnames++;
	hmap_put(&d->names, name.p, name.n, (int64_t)d->nnames);
	return (uint32_t)d->nnames;
}

static void
pft_name_set(struct pft *d, struct imap *m, uint64_t id, struct mstr name)
{
	if (name.n == 0 || name.n > d->limits->max_string_len)
		return;
	imap_put(m, id, pft_name_intern(d, name));
}

struct mstr
pft_name(const struct pft *d, uint32_t idx)
{
	const struct pft_name *n = &d->namev[idx - 1];

	return (struct mstr){ (const char *)d->namebytes.p + n->off, n->len };
}

/* ProcessTree.Process, ProcessDescriptor: pid = 1, cmdline = 2 or 3
 * (first entry), process_name = 6 (preferred). */
int
pft_process(struct pft *d, const struct pb *c, const struct pb_field *f,
    uint32_t cmdnum, const char *what)
{
	struct mstr cmd = { "", 0 }, name = { "", 0 };
	struct pb_field g;
	struct pb sub;
	uint64_t pid = 0;
	int r, has_pid = 0, ncmd = 0;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, what)) == 1) {
		if (g.num == 1 && g.wt == PB_VARINT) {
			pid = g.v;
			has_pid = 1;
		} else if (g.num == cmdnum && g.wt == PB_LEN && ncmd++ == 0)
			cmd = (struct mstr){ (const char *)g.data, g.len };
		else if (g.num == 6 && cmdnum == 2 && g.wt == PB_LEN)
			name = (struct mstr){ (const char *)g.data, g.len };
	}
	if (r == -1)
		return -1;
	if (has_pid)
		pft_name_set(d, &d->procname, (uint64_t)(int32_t)pid,
		    name.n ? name : cmd);
	return 0;
}

/* ProcessTree.Thread (tid 1, name 2, tgid 3) or ThreadDescriptor (pid 1,
 * tid 2, thread_name 5); a descriptor also names its sequence's thread. */
int
pft_thread(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f, int descriptor, uint64_t tgid_dflt)
{
	struct mstr name = { "", 0 };
	struct pb_field g;
	struct pb sub;
	uint64_t tid = 0, pid = tgid_dflt;
	int r, has_tid = 0, has_pid = tgid_dflt != 0;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "Thread")) == 1) {
		if (g.wt == PB_VARINT && g.num == (descriptor ? 2u : 1u)) {
			tid = (uint64_t)(int32_t)g.v;
			has_tid = 1;
		} else if (g.wt == PB_VARINT &&
		    g.num == (descriptor ? 1u : 3u)) {
			pid = (uint64_t)(int32_t)g.v;
			has_pid = 1;
		} else if (g.wt == PB_LEN && g.num == (descriptor ? 5u : 2u))
			name = (struct mstr){ (const char *)g.data, g.len };
	}
	if (r == -1 || !has_tid)
		return r;
	pft_name_set(d, &d->thrname, tid, name);
	if (has_pid)
		imap_put(&d->thrpid, tid, pid + 1 != 0 ? (int64_t)pid + 1 :
		    PFT_NO_PID);
	if (descriptor && s != NULL) {
		s->tid = tid;
		s->pid = pid;
		s->has_thread = has_pid ? 2 : 1;
	}
	return 0;
}

int
pft_process_tree(struct pft *d, const struct pb *c, const struct pb_field *f)
{
	struct pb_field g, h;
	struct pb sub, ps;
	int r;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "ProcessTree")) == 1) {
		if (g.num == 1 && g.wt == PB_LEN) {
			uint64_t pid = 0;

			if (pft_process(d, &sub, &g, 3, "ProcessTree.Process")
			    == -1)
				return -1;
			/* threads_deprecated (4) belong to this process. */
			pb_sub(&sub, &g, &ps);
			while ((r = pb_dec_next(&d->pd, &ps, &h,
			    "Process")) == 1)
				if (h.num == 1 && h.wt == PB_VARINT)
					pid = (uint64_t)(int32_t)h.v;
			pb_sub(&sub, &g, &ps);
			while ((r = pb_dec_next(&d->pd, &ps, &h,
			    "Process")) == 1)
				if (h.num == 4 && h.wt == PB_LEN &&
				    pft_thread(d, NULL, &ps, &h, 0, pid) == -1)
					return -1;
			if (r == -1)
				return -1;
		} else if (g.num == 2 && g.wt == PB_LEN) {
			if (pft_thread(d, NULL, &sub, &g, 0, 0) == -1)
				return -1;
		}
	}
	return r;
}

int
pft_track_descriptor(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	struct pb_field g;
	struct pb sub;
	int r;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "TrackDescriptor")) == 1) {
		if (g.num == 3 && g.wt == PB_LEN) {
			if (pft_process(d, &sub, &g, 2, "ProcessDescriptor") ==
			    -1)
				return -1;
		} else if (g.num == 4 && g.wt == PB_LEN) {
			if (pft_thread(d, s, &sub, &g, 1, 0) == -1)
				return -1;
		}
	}
	return r;
}

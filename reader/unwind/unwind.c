/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DWARF unwinding of recorded user stacks with libdwfl.  A sample brings
 * the user registers at the interrupt and a copy of the stack from SP
 * up; the unwinder serves libdwfl the registers, the copy, and (for the
 * rare CFI expression that reads elsewhere) the read-only contents of
 * the mapped files, found by the symbolizer's build-id lookup.
 *
 * The costly part of DWARF unwinding is setting libdwfl up: opening the
 * modules, finding and parsing their CFI.  So each process image gets one
 * Dwfl, attached once and kept across its samples (perf's first libdw
 * unwinder made one per sample); its modules are
 * reported again only when the session says the process's maps changed,
 * and modules that stay keep their parsed CFI.  A few dozen process
 * images are kept, the least recently used one goes first.
 *
 * Even so, libdwfl finds and runs the CFI of every frame of every sample
 * again, allocating as it goes: most of a report's time.  So frames are
 * stepped here from CFI rows kept per pc (rules.c) by libdwfl's own
 * rules, and a stack goes to libdwfl only where a row is more than an
 * offset from a register (bench/README.md, dwarf, has the figures).
 *
 * Frames the unwinder gets wrong end the stack rather than go on: a read
 * beyond the stack copy (the stack goes deeper than was copied: the
 * caller marks it truncated), or any failed read (libdwfl then guesses
 * from the frame pointer, which -fomit-frame-pointer code does not keep),
 * a pc in no map, a stack pointer that does not grow, and depth past
 * UNWIND_MAX_FRAMES.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "format.h"
#include "rules.h"
#include "symbolize.h"
#include "unwind.h"

/* Why a user stack ends where it does. */
enum unwind_end {
	UNWIND_COMPLETE,	/* the outermost frame (CFI: no return address) */
	UNWIND_TRUNCATED,	/* the stack copy (or the depth limit) ran out */
	UNWIND_UNKNOWN,		/* no CFI, an unmapped pc, a cycle, unreadable memory */
};

#define PROCESSES_KEPT	32
#define SEGMENTS_MAX	16
/* Stack frames are this large at most: a failed read further up is no truncation. */
#define RAN_OUT_WINDOW	(16u << 20)

/* perf's x86_64 register numbers (arch/x86/include/uapi/asm/perf_regs.h). */
enum {
	PERF_X86_AX, PERF_X86_BX, PERF_X86_CX, PERF_X86_DX, PERF_X86_SI, PERF_X86_DI,
	PERF_X86_BP, PERF_X86_SP, PERF_X86_IP, PERF_X86_R8 = 16, PERF_X86_R15 = 23,
};
#define DWARF_X86_SP	7

/* DWARF's x86_64 number of each perf register below R15; -1: none (IP, flags, segments). */
static const signed char dwarf_of_perf[PERF_X86_R15 + 1] = {
	[PERF_X86_AX] = 0, [PERF_X86_BX] = 3, [PERF_X86_CX] = 2, [PERF_X86_DX] = 1,
	[PERF_X86_SI] = 4, [PERF_X86_DI] = 5, [PERF_X86_BP] = 6, [PERF_X86_SP] = 7,
	[PERF_X86_IP] = -1, [9] = -1, [10] = -1, [11] = -1, [12] = -1, [13] = -1,
	[14] = -1, [15] = -1,
	[16] = 8, [17] = 9, [18] = 10, [19] = 11, [20] = 12, [21] = 13, [22] = 14, [23] = 15,
};

struct segment {
	uint64_t offset, filesz, vaddr;
	int writable;
};

/* What the unwinder knows of a DSO, for the whole run. */
struct dso_info {
	struct unwinder *unwinder;
	struct dso *dso;
	int usable;			/* an ELF with PT_LOADs the maps can place */
	const char *elf_path;		/* interned by the symbolizer */
	struct segment segments[SEGMENTS_MAX];
	size_t segment_count;
	int fd;				/* for memory reads, opened at the first; -1 */
	int debug_frame;		/* its debug file has .debug_frame: 1, 0; -1 unknown */
	struct frame_rules *rules;	/* its CFI rows, made at the first */
};

struct reported_module {
	struct dso_info *info;
	Dwfl_Module *module;
	uint64_t bias;
	Dwarf_Addr low, high;
	int kept;			/* reported again in this round */
};

/* One process image: its Dwfl, attached once. */
struct process_unwind {
	const void *process;		/* NULL: a free slot */
	uint64_t generation;
	uint64_t last_used;
	Dwfl *dwfl;
	struct reported_module *modules;
	size_t module_count, module_capacity;
};

struct unwinder {
	struct session *session;
	struct symbolizer *symbolizer;
	int machine_checked, machine_unsupported;
	Elf *machine_elf;		/* an x86_64 ELF header: libdwfl's backend */
	Elf64_Ehdr machine_header;

	struct dso_info **infos;	/* by DSO in info_index */
	size_t info_count, info_capacity;
	struct prf_index info_index;

	struct process_unwind processes[PROCESSES_KEPT];
	uint64_t clock;

	/* the sample being unwound */
	const struct session_sample *sample;
	const struct prf_regs *regs;
	uint64_t sp;
	const uint8_t *stack;
	uint64_t stack_live;		/* bytes of the copy from sp */
	int read_failed, ran_out;
	uint64_t *pcs;
	size_t count, capacity;
	uint64_t last_sp;
	int stopped;
	enum unwind_end end;

	enum { UNWIND_MODE_ROWS, UNWIND_MODE_LIBDWFL, UNWIND_MODE_CHECK } mode;
	uint64_t *check_pcs;
	uint64_t checked, checked_by_rows, check_differed;

	/* unwinder_for_each_sample()'s */
	session_sample_fn fn;
	void *context;
	uint64_t *chain;		/* an unwound sample's callchain */
	size_t chain_capacity;
};

/* ---- DSOs -------------------------------------------------------------- */

static void read_segments(struct dso_info *info)
{
	int fd = prf_open_regular(info->elf_path);
	size_t count;
	Elf *elf;

	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_getphdrnum(elf, &count) == 0) {
		for (size_t i = 0; i < count && info->segment_count < SEGMENTS_MAX; i++) {
			GElf_Phdr phdr;

			if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_LOAD ||
			    !phdr.p_filesz || phdr.p_offset + phdr.p_filesz < phdr.p_offset)
				continue;
			info->segments[info->segment_count++] = (struct segment){
				phdr.p_offset, phdr.p_filesz, phdr.p_vaddr,
				(phdr.p_flags & PF_W) != 0,
			};
		}
	}
	elf_end(elf);
	close(fd);
	info->usable = info->segment_count > 0;
}

static int info_equal(const void *context, uint32_t id, const void *key)
{
	return ((const struct unwinder *)context)->infos[id - 1]->dso == key;
}

static struct dso_info *dso_info(struct unwinder *u, struct dso *dso)
{
	struct prf_index_slot *slot;
	struct dso_info *info;
	uint64_t h;

	if (!dso)
		return NULL;
	h = prf_hash_mix((uintptr_t)dso);
	slot = prf_index_place(&u->info_index, h, info_equal, u, dso);
	if (!slot)
		return NULL;
	if (slot->id) {
		info = u->infos[slot->id - 1];
		return info->usable ? info : NULL;
	}
	if (prf_ensure_mem((void **)&u->infos, &u->info_capacity, sizeof(*u->infos),
			   u->info_count + 1) < 0)
		return NULL;
	info = calloc(1, sizeof(*info));
	if (!info)
		return NULL;
	info->unwinder = u;
	info->dso = dso;
	info->fd = -1;
	info->debug_frame = -1;
	if (symbolizer_dso_files(u->symbolizer, dso, &info->elf_path, NULL) == 0 &&
	    info->elf_path)
		read_segments(info);
	u->infos[u->info_count++] = info;
	prf_index_insert(&u->info_index, slot, h, (uint32_t)u->info_count);
	return info->usable ? info : NULL;
}

/*
 * module address = ELF vaddr + bias, from the first PT_LOAD the map's file
 * range meets.  0 when none does (a map of the file's tail, say).
 */
static int map_bias(const struct dso_info *info, uint64_t start, uint64_t end,
		    uint64_t page_offset, uint64_t *bias)
{
	uint64_t length = end - start;

	for (size_t i = 0; i < info->segment_count; i++) {
		const struct segment *seg = &info->segments[i];
		uint64_t from = seg->offset > page_offset ? seg->offset : page_offset;

		if (from - page_offset >= length || from - seg->offset >= seg->filesz)
			continue;
		*bias = start + (from - page_offset) - (seg->vaddr + (from - seg->offset));
		return 1;
	}
	return 0;
}

/* ---- reporting a process's modules ------------------------------------ */

struct report_round {
	struct unwinder *unwinder;
	struct process_unwind *process;
	size_t previous;		/* modules [0, previous) are last round's */
};

static struct reported_module *find_module(struct process_unwind *p, size_t from, size_t to,
					   const struct dso_info *info, uint64_t bias)
{
	for (size_t i = from; i < to; i++)
		if (p->modules[i].info == info && p->modules[i].bias == bias)
			return &p->modules[i];
	return NULL;
}

static void report_map(void *context, uint64_t start, uint64_t end, uint64_t page_offset,
		       struct dso *dso)
{
	struct report_round *round = context;
	struct process_unwind *p = round->process;
	struct dso_info *info = dso_info(round->unwinder, dso);
	struct reported_module *m;
	Dwfl_Module *module;
	void **userdata;
	uint64_t bias;

	if (!info || !map_bias(info, start, end, page_offset, &bias))
		return;
	/* Other segments of a module already reported in this round. */
	if (find_module(p, round->previous, p->module_count, info, bias))
		return;
	m = find_module(p, 0, round->previous, info, bias);
	if (m) {
		if (m->kept)
			return;
		/* The same name and range: libdwfl keeps the module and its CFI. */
		m->module = dwfl_report_module(p->dwfl, info->elf_path, m->low, m->high);
		m->kept = m->module != NULL;
		return;
	}
	if (prf_ensure_mem((void **)&p->modules, &p->module_capacity, sizeof(*p->modules),
			   p->module_count + 1) < 0)
		return;
	module = dwfl_report_elf(p->dwfl, info->elf_path, info->elf_path, -1, bias, true);
	if (!module)
		return;		/* overlapping another module, or unreadable */
	m = &p->modules[p->module_count++];
	*m = (struct reported_module){ .info = info, .module = module, .bias = bias, .kept = 1 };
	dwfl_module_info(module, &userdata, &m->low, &m->high, NULL, NULL, NULL, NULL);
	*userdata = info;
}

static int by_low(const void *a, const void *b)
{
	const struct reported_module *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

static void report_modules(struct unwinder *u, struct process_unwind *p)
{
	struct report_round round = { u, p, p->module_count };
	size_t kept = 0;

	for (size_t i = 0; i < p->module_count; i++)
		p->modules[i].kept = 0;
	dwfl_report_begin(p->dwfl);
	session_for_each_map(u->sample, report_map, &round);
	dwfl_report_end(p->dwfl, NULL, NULL);
	for (size_t i = 0; i < p->module_count; i++)
		if (p->modules[i].kept)
			p->modules[kept++] = p->modules[i];
	p->module_count = kept;
	/* libdwfl refuses overlapping modules: sorted, they are disjoint ranges. */
	if (p->module_count > 1)
		qsort(p->modules, p->module_count, sizeof(*p->modules), by_low);
}

/* ---- libdwfl's callbacks ----------------------------------------------- */

static int find_no_elf(Dwfl_Module *module, void **userdata, const char *name,
		       Dwarf_Addr base, char **file_name, Elf **elf)
{
	(void)module, (void)userdata, (void)name, (void)base, (void)file_name;
	*elf = NULL;
	return -1;
}

/* Whether the ELF file at path has a .debug_frame section. */
static int has_debug_frame(const char *path)
{
	int fd = prf_open_regular(path);
	Elf_Scn *scn = NULL;
	size_t strndx;
	int found = 0;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_getshdrstrndx(elf, &strndx) == 0) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr shdr;
			const char *name;

			name = gelf_getshdr(scn, &shdr) ? elf_strptr(elf, strndx, shdr.sh_name) : NULL;
			found = name && shdr.sh_type != SHT_NOBITS && !strcmp(name, ".debug_frame");
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/*
 * .debug_frame, when .eh_frame has no entry: the symbolizer's debug file,
 * offered only when it has that section.  Opening it makes libdwfl load and
 * decompress all of its DWARF, in every Dwfl: libc6-dbg's (which has no
 * .debug_frame at all), once per process image, was most of a report.
 */
static int find_debuginfo(Dwfl_Module *module, void **userdata, const char *name,
			  Dwarf_Addr base, const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	struct dso_info *info = *userdata;
	const char *debug;
	int fd;

	(void)module, (void)name, (void)base, (void)file_name, (void)debuglink, (void)crc;
	if (!info || info->debug_frame == 0 ||
	    symbolizer_dso_files(info->unwinder->symbolizer, info->dso, NULL, &debug) < 0 || !debug)
		return -1;
	if (info->debug_frame < 0)
		info->debug_frame = has_debug_frame(debug);
	if (!info->debug_frame)
		return -1;
	fd = prf_open_regular(debug);
	if (fd < 0)
		return -1;
	*debuginfo_file_name = strdup(debug);
	return fd;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl, (void)tid;
	*thread_arg = arg;
	return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	struct unwinder *u = arg;

	(void)dwfl;
	if (*thread_arg)
		return 0;
	*thread_arg = arg;
	return (pid_t)u->sample->tid;
}

static bool read_stack(const struct unwinder *u, Dwarf_Addr address, Dwarf_Word *value)
{
	if (address < u->sp || u->stack_live < sizeof(*value) ||
	    address - u->sp > u->stack_live - sizeof(*value))
		return false;
	memcpy(value, u->stack + (address - u->sp), sizeof(*value));
	return true;
}

/* What a mapped file holds at address, where nothing writes at run time. */
static bool read_file(struct unwinder *u, Dwarf_Addr address, Dwarf_Word *value)
{
	struct resolved_address where;
	struct dso_info *info;

	session_resolve(u->session, u->sample, address, 0, &where);
	info = dso_info(u, where.dso);
	if (!info)
		return false;
	for (size_t i = 0; i < info->segment_count; i++) {
		const struct segment *seg = &info->segments[i];

		if (seg->writable || where.address < seg->offset ||
		    seg->filesz < sizeof(*value) ||
		    where.address - seg->offset > seg->filesz - sizeof(*value))
			continue;
		if (info->fd < 0)
			info->fd = prf_open_regular(info->elf_path);
		return info->fd >= 0 &&
		       pread(info->fd, value, sizeof(*value), (off_t)where.address) ==
		       (ssize_t)sizeof(*value);
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr address, Dwarf_Word *value, void *arg)
{
	struct unwinder *u = arg;
	uint64_t above;

	(void)dwfl;
	if (read_stack(u, address, value) || read_file(u, address, value))
		return true;
	u->read_failed = 1;
	/* Just past the copy: the stack went on, deeper than was copied. */
	above = address - u->sp;
	if (address >= u->sp && above >= u->stack_live && above - u->stack_live < RAN_OUT_WINDOW)
		u->ran_out = 1;
	return false;
}

/* The sample's user registers by DWARF number, *known a bit for each; returns the ip. */
static uint64_t initial_registers(const struct prf_regs *perf, uint64_t regs[RULE_REGISTERS],
				  uint32_t *known)
{
	uint32_t index = 0;
	uint64_t ip = 0;

	*known = 0;
	for (unsigned bit = 0; bit < 64 && index < perf->count; bit++) {
		uint64_t value;

		if (!(perf->mask & (1ull << bit)))
			continue;
		value = perf->regs[index++];
		if (bit == PERF_X86_IP) {
			ip = value;
		} else if (bit <= PERF_X86_R15 && dwarf_of_perf[bit] >= 0) {
			regs[dwarf_of_perf[bit]] = value;
			*known |= 1u << dwarf_of_perf[bit];
		}
	}
	return ip;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	uint64_t regs[RULE_REGISTERS];
	uint32_t known;
	uint64_t ip = initial_registers(u->regs, regs, &known);

	for (unsigned r = 0; r < RULE_REGISTERS; r++) {
		Dwarf_Word value;

		if (!(known >> r & 1))
			continue;
		value = regs[r];
		if (!dwfl_thread_state_registers(thread, (int)r, 1, &value))
			return false;
	}
	dwfl_thread_state_register_pc(thread, ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_no_elf,
	.find_debuginfo = find_debuginfo,
};

/* ---- frames -------------------------------------------------------------- */

static int stop(struct unwinder *u, enum unwind_end end)
{
	u->stopped = 1;
	u->end = end;
	return DWARF_CB_ABORT;
}

static int pc_mapped(struct unwinder *u, uint64_t pc)
{
	struct resolved_address where;

	session_resolve(u->session, u->sample, pc, 0, &where);
	return where.dso != NULL;
}

static int take_frame(Dwfl_Frame *frame, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp;
	bool activation;

	/*
	 * A read failed while libdwfl unwound to this frame: its CFI could
	 * not be followed and this frame is libdwfl's frame-pointer guess.
	 * (Checked first: asking for the pc below unwinds the next frame.)
	 */
	if (u->count && u->read_failed)
		return stop(u, u->ran_out ? UNWIND_TRUNCATED : UNWIND_UNKNOWN);
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return stop(u, UNWIND_UNKNOWN);
	if (u->count) {
		if (dwfl_frame_reg(frame, DWARF_X86_SP, &sp) != 0 || sp <= u->last_sp)
			return stop(u, UNWIND_UNKNOWN);		/* a cycle, or garbage */
		if (!pc || !pc_mapped(u, activation ? pc : pc - 1))
			return stop(u, UNWIND_UNKNOWN);
		u->last_sp = sp;
	}
	if (u->count == u->capacity)
		return stop(u, UNWIND_TRUNCATED);
	/* Callers' entries are return addresses, looked up at - 1: not these. */
	u->pcs[u->count] = u->count && activation ? pc + 1 : pc;
	u->count++;
	return DWARF_CB_OK;
}

/* ---- frames, stepped with cached CFI rows ----------------------------------- */

static const struct reported_module *module_at(const struct process_unwind *p, uint64_t pc)
{
	size_t lo = 0, hi = p->module_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->modules[mid].low <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < p->modules[lo - 1].high ? &p->modules[lo - 1] : NULL;
}

static const struct frame_rule *row_at(struct process_unwind *p, uint64_t pc)
{
	const struct reported_module *m = module_at(p, pc);

	if (!m)
		return NULL;
	if (!m->info->rules && !(m->info->rules = frame_rules_new()))
		return NULL;
	return frame_rule_at(m->info->rules, m->module, pc - m->bias, pc);
}

/*
 * The frames libdwfl's dwfl_getthread_frames and take_frame give, by the
 * same rules (handle_cfi in libdwfl's frame_unwind.c: every register's
 * rule applied, a failed read leaves that register unknown, an unknown or
 * zero return address is the outermost frame), from rows kept per pc.
 * Returns 0, having changed nothing the caller keeps, where a row is not
 * followable or a pc is in no module: libdwfl then unwinds the sample,
 * with its frame-pointer guess and its DWARF expressions.
 */
static int unwind_by_rows(struct unwinder *u, struct process_unwind *p)
{
	uint64_t regs[RULE_REGISTERS] = { 0 }, caller[RULE_REGISTERS] = { 0 };
	uint32_t known, caller_known;
	uint64_t pc = initial_registers(u->regs, regs, &known);

	u->pcs[0] = pc;
	u->count = 1;
	for (;;) {
		const struct frame_rule *row = row_at(p, u->count == 1 ? pc : pc - 1);
		uint64_t cfa;

		if (!row || !row->followable || !(known & (1u << row->cfa_register)))
			return 0;
		cfa = regs[row->cfa_register] + (uint64_t)(int64_t)row->cfa_offset;
		caller_known = 0;
		for (unsigned r = 0; r < RULE_REGISTERS; r++) {
			uint64_t at = cfa + (uint64_t)(int64_t)row->offset[r];

			switch (row->kind[r]) {
			case REGISTER_SAME:
				caller[r] = regs[r];
				caller_known |= known & (1u << r);
				break;
			case REGISTER_SAVED:
				if (memory_read(NULL, at, &caller[r], u))
					caller_known |= 1u << r;
				break;
			case REGISTER_CFA_PLUS:
				caller[r] = at;
				caller_known |= 1u << r;
				break;
			default:
				break;
			}
		}
		if (u->read_failed) {
			u->end = u->ran_out ? UNWIND_TRUNCATED : UNWIND_UNKNOWN;
			return 1;
		}
		if (!(caller_known & (1u << row->return_register)) || !caller[row->return_register]) {
			u->end = UNWIND_COMPLETE;
			return 1;
		}
		pc = caller[row->return_register];
		if (!(caller_known & (1u << DWARF_X86_SP)) || caller[DWARF_X86_SP] <= u->last_sp ||
		    !pc_mapped(u, pc - 1)) {
			u->end = UNWIND_UNKNOWN;
			return 1;
		}
		u->last_sp = caller[DWARF_X86_SP];
		if (u->count == u->capacity) {
			u->end = UNWIND_TRUNCATED;
			return 1;
		}
		u->pcs[u->count++] = pc;
		memcpy(regs, caller, sizeof(regs));
		known = caller_known;
	}
}

/* ---- processes ------------------------------------------------------------ */

static void process_release(struct process_unwind *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p->modules);
	memset(p, 0, sizeof(*p));
}

static struct process_unwind *process_unwind_for(struct unwinder *u,
						 const struct session_sample *sample)
{
	struct process_unwind *p = NULL, *oldest = &u->processes[0];
	uint64_t generation = session_maps_generation(sample);

	for (size_t i = 0; i < PROCESSES_KEPT; i++) {
		if (u->processes[i].process == sample->process) {
			p = &u->processes[i];
			break;
		}
		if (u->processes[i].last_used < oldest->last_used)
			oldest = &u->processes[i];
	}
	if (!p) {
		p = oldest;
		process_release(p);
		p->dwfl = dwfl_begin(&dwfl_callbacks);
		if (!p->dwfl)
			return NULL;
		if (!dwfl_attach_state(p->dwfl, u->machine_elf, (pid_t)sample->pid,
				       &thread_callbacks, u)) {
			process_release(p);
			return NULL;
		}
		p->process = sample->process;
		p->generation = generation;
		report_modules(u, p);
	} else if (p->generation != generation) {
		p->generation = generation;
		report_modules(u, p);
	}
	p->last_used = ++u->clock;
	return p;
}

/* ---- the unwinder ---------------------------------------------------------- */

struct unwinder *unwinder_new(struct session *session, struct symbolizer *symbolizer)
{
	struct unwinder *u;
	const char *mode;

	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->session = session;
	u->symbolizer = symbolizer;
	elf_version(EV_CURRENT);
	memcpy(u->machine_header.e_ident, ELFMAG, SELFMAG);
	u->machine_header.e_ident[EI_CLASS] = ELFCLASS64;
	u->machine_header.e_ident[EI_DATA] = ELFDATA2LSB;
	u->machine_header.e_ident[EI_VERSION] = EV_CURRENT;
	u->machine_header.e_type = ET_CORE;
	u->machine_header.e_machine = EM_X86_64;
	u->machine_header.e_version = EV_CURRENT;
	u->machine_header.e_ehsize = sizeof(u->machine_header);
	u->machine_elf = elf_memory((char *)&u->machine_header, sizeof(u->machine_header));
	if (!u->machine_elf) {
		free(u);
		return NULL;
	}
	/* For tests and for suspicion: libdwfl for every frame, or both ways compared. */
	mode = getenv("PERFREC_UNWIND");
	if (mode && !strcmp(mode, "libdwfl"))
		u->mode = UNWIND_MODE_LIBDWFL;
	else if (mode && !strcmp(mode, "check"))
		u->mode = UNWIND_MODE_CHECK;
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < PROCESSES_KEPT; i++)
		process_release(&u->processes[i]);
	for (size_t i = 0; i < u->info_count; i++) {
		if (u->infos[i]->fd >= 0)
			close(u->infos[i]->fd);
		frame_rules_free(u->infos[i]->rules);
		free(u->infos[i]);
	}
	free(u->infos);
	prf_index_free(&u->info_index);
	elf_end(u->machine_elf);
	free(u->check_pcs);
	free(u->chain);
	free(u);
}

static void print_check(const struct unwinder *u)
{
	if (u->mode == UNWIND_MODE_CHECK)
		fprintf(stderr, "unwind check: %" PRIu64 " stacks, %" PRIu64 " followed by CFI rows, "
			"%" PRIu64 " of those differ from libdwfl\n",
			u->checked, u->checked_by_rows, u->check_differed);
}

static int has_register(const struct prf_regs *regs, unsigned bit)
{
	return (regs->mask >> bit) & 1;
}

static int unwind_possible(const struct prf_sample *decoded)
{
	const struct prf_regs *regs = &decoded->regs_user;

	return (decoded->sample_type & PERF_SAMPLE_REGS_USER) &&
	       (decoded->sample_type & PERF_SAMPLE_STACK_USER) &&
	       regs->abi == PERF_SAMPLE_REGS_ABI_64 && regs->regs &&
	       regs->count == (uint32_t)__builtin_popcountll(regs->mask) &&
	       has_register(regs, PERF_X86_IP) && has_register(regs, PERF_X86_SP) &&
	       decoded->stack_user && decoded->stack_user_size;
}

static uint64_t register_value(const struct prf_regs *regs, unsigned bit)
{
	return regs->regs[__builtin_popcountll(regs->mask & ((1ull << bit) - 1))];
}

static void start_walk(struct unwinder *u)
{
	u->read_failed = u->ran_out = u->stopped = 0;
	u->count = 0;
	u->last_sp = u->sp;
	u->end = UNWIND_UNKNOWN;
}

static void unwind_by_libdwfl(struct unwinder *u, struct process_unwind *p, pid_t tid)
{
	int ret;

	start_walk(u);
	ret = dwfl_getthread_frames(p->dwfl, tid, take_frame, u);
	/*
	 * A return address that cannot be read ends libdwfl's walk as an
	 * outermost frame does (ret 0): the failed read tells them apart.
	 */
	if (u->stopped)
		return;
	else if (u->ran_out)
		u->end = UNWIND_TRUNCATED;
	else if (u->read_failed || ret != 0)
		u->end = UNWIND_UNKNOWN;
	else
		u->end = UNWIND_COMPLETE;
}

/* PERFREC_UNWIND=check: both ways, libdwfl's answer kept, differences counted. */
static void unwind_checked(struct unwinder *u, struct process_unwind *p, pid_t tid)
{
	size_t count;
	enum unwind_end end;
	int by_rows;

	if (!u->check_pcs && !(u->check_pcs = calloc(u->capacity, sizeof(*u->check_pcs)))) {
		unwind_by_libdwfl(u, p, tid);
		return;
	}
	start_walk(u);
	by_rows = unwind_by_rows(u, p);
	count = u->count;
	end = u->end;
	memcpy(u->check_pcs, u->pcs, count * sizeof(*u->pcs));
	unwind_by_libdwfl(u, p, tid);
	u->checked++;
	if (!by_rows)
		return;
	u->checked_by_rows++;
	if (count != u->count || end != u->end || memcmp(u->check_pcs, u->pcs, count * sizeof(*u->pcs)))
		u->check_differed++;
}

/*
 * pcs[0] is the interrupted user ip, the others return addresses (as in
 * a callchain: a lookup wants address - 1), at most capacity of them.
 * Returns how many, 0 when nothing could be unwound; *end says why the
 * stack stops there.
 */
static size_t unwind_user_stack(struct unwinder *u, const struct session_sample *sample,
				const struct prf_sample *decoded, uint64_t *pcs, size_t capacity,
				enum unwind_end *end)
{
	struct process_unwind *p;

	*end = UNWIND_UNKNOWN;
	if (!u || !capacity || !sample->process || !unwind_possible(decoded))
		return 0;
	u->sample = sample;
	u->regs = &decoded->regs_user;
	u->sp = register_value(u->regs, PERF_X86_SP);
	u->stack = decoded->stack_user;
	/* The decoder checked these; a lying record must not reach past its copy. */
	u->stack_live = decoded->stack_user_dyn_size < decoded->stack_user_size ?
			decoded->stack_user_dyn_size : decoded->stack_user_size;
	u->pcs = pcs;
	u->capacity = capacity < UNWIND_MAX_FRAMES ? capacity : UNWIND_MAX_FRAMES;
	start_walk(u);
	p = process_unwind_for(u, sample);
	if (p) {
		if (u->mode == UNWIND_MODE_CHECK)
			unwind_checked(u, p, (pid_t)sample->tid);
		else if (u->mode == UNWIND_MODE_LIBDWFL || (start_walk(u), !unwind_by_rows(u, p)))
			unwind_by_libdwfl(u, p, (pid_t)sample->tid);
		*end = u->end;
	}
	if (!u->count) {
		/* No Dwfl: the interrupted ip at least. */
		pcs[0] = register_value(u->regs, PERF_X86_IP);
		u->count = 1;
	}
	u->sample = NULL;
	return u->count;
}

/* ---- the sample stream ------------------------------------------------- */

static int machine_supported(struct unwinder *u)
{
	struct session_summary summary;

	if (!u->machine_checked) {
		u->machine_checked = 1;
		session_get_summary(u->session, &summary);
		u->machine_unsupported = !summary.machine || strcmp(summary.machine, "x86_64") != 0;
		if (u->machine_unsupported)
			session_warn(u->session, "user stacks are not unwound on %s captures (x86_64 only)",
				     summary.machine ? summary.machine : "unknown");
	}
	return !u->machine_unsupported;
}

/*
 * An off-CPU block's registers and stack copy as a sample's, which the
 * unwinder reads: taken where the blocked thread entered the kernel, its
 * whole copy live (the collector copies what is).
 */
static const struct prf_sample *off_cpu_as_record(const struct prf_off_cpu *block,
						  struct prf_sample *shim)
{
	memset(shim, 0, sizeof(*shim));
	if (!block->user_regs.abi || !block->user_stack)
		return shim;
	shim->sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	shim->pid = block->pid;
	shim->tid = block->tid;
	shim->time = block->time;
	shim->regs_user = block->user_regs;
	shim->stack_user = block->user_stack;
	shim->stack_user_size = block->user_stack_size;
	shim->stack_user_dyn_size = block->user_stack_size;
	return shim;
}

/* The callchain unwinder_for_each_sample() promises, in u->chain. */
static void unwind_sample(struct unwinder *u, struct session_sample *sample)
{
	size_t kernel_part = 0, at = 0, count, need;
	const struct prf_sample *record = sample->record;
	struct prf_sample shim;
	enum unwind_end end;

	if (!record && sample->off_cpu)
		record = off_cpu_as_record(sample->off_cpu, &shim);
	if (!sample->process || !record || !unwind_possible(record) || !machine_supported(u))
		return;
	while (kernel_part < sample->callchain_nr &&
	       sample->callchain[kernel_part] != PERF_CONTEXT_USER)
		kernel_part++;
	need = kernel_part + 4 + UNWIND_MAX_FRAMES;
	if (prf_ensure_mem((void **)&u->chain, &u->chain_capacity, sizeof(*u->chain), need) < 0)
		return;
	if (!kernel_part && prf_misc_is_kernel(sample->misc)) {
		u->chain[at++] = PERF_CONTEXT_KERNEL;	/* no callchain recorded */
		u->chain[at++] = sample->ip;
	}
	memcpy(u->chain + at, sample->callchain, kernel_part * sizeof(*u->chain));
	at += kernel_part;
	u->chain[at++] = PERF_CONTEXT_USER;
	count = unwind_user_stack(u, sample, record, u->chain + at, UNWIND_MAX_FRAMES, &end);
	if (!count)
		return;
	at += count;
	if (end == UNWIND_TRUNCATED)
		u->chain[at++] = UNWIND_FRAME_TRUNCATED;
	else if (end == UNWIND_UNKNOWN)
		u->chain[at++] = UNWIND_FRAME_UNKNOWN;
	sample->callchain = u->chain;
	sample->callchain_nr = at;
}

static void on_sample(void *context, const struct session_sample *recorded)
{
	struct unwinder *u = context;
	struct session_sample sample = *recorded;

	unwind_sample(u, &sample);
	u->fn(u->context, &sample);
}

int unwinder_for_each_sample(struct unwinder *u, const struct session_filter *filter,
			     session_sample_fn fn, void *context)
{
	int ret;

	u->fn = fn;
	u->context = context;
	ret = session_for_each_sample(u->session, filter, on_sample, u);
	print_check(u);
	return ret;
}

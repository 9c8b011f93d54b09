// SPDX-License-Identifier: GPL-2.0-or-later
//
// A JIT workload for test-report-jit-node: burns CPU in hotA (3 calls in
// 4) and hotB (1 in 4), the same loop, for SECONDS seconds (argv[2], 3 by
// default), and prints "pid PID hotA A hotB B": the share of the
// process's CPU time, in percent, spent inside each, as process.cpuUsage()
// measured it around every call.  Run with --perf-basic-prof (the names)
// and --no-turbo-inlining (so that neither is inlined into the loop).
'use strict';

function hotA(x) {
	for (let i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
	}
	return x;
}

function hotB(x) {
	for (let i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
	}
	return x;
}

function cpu() {
	const u = process.cpuUsage();
	return u.user + u.system;
}

const seconds = Number(process.argv[2] || 3);
const end = Date.now() + seconds * 1000;
let inA = 0, inB = 0, x = 1;
while (Date.now() < end) {
	for (let k = 0; k < 3; k++) {
		const t = cpu();
		x = hotA(x | 1);
		inA += cpu() - t;
	}
	const t = cpu();
	x = hotB(x | 1);
	inB += cpu() - t;
}
const total = cpu();
console.log(`pid ${process.pid} hotA ${(100 * inA / total).toFixed(1)} hotB ${(100 * inB / total).toFixed(1)} sink ${x}`);

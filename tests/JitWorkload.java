// SPDX-License-Identifier: GPL-2.0-or-later
//
// A JIT workload for test-report-jit-java: burns CPU in hotA (3 calls in
// 4) and hotB (1 in 4), the same loop, for SECONDS seconds (args[0], 3 by
// default), and prints "pid PID hotA A hotB B": the share of the
// process's CPU time, in percent, spent inside each, as the thread's CPU
// clock measured it around every call, over the process's CPU time.
// Run with -XX:CompileCommand=dontinline,JitWorkload::hot* so that
// neither is inlined into the loop.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class JitWorkload {
	static int hotA(int x) { for (int i = 0; i < 200000; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; } return x; }
	static int hotB(int x) { for (int i = 0; i < 200000; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; } return x; }

	public static void main(String[] args) {
		double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		com.sun.management.OperatingSystemMXBean os =
			(com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
		long inA = 0, inB = 0, end = System.nanoTime() + (long) (seconds * 1e9);
		int x = 1;
		while (System.nanoTime() < end) {
			for (int k = 0; k < 3; k++) {
				long t = threads.getCurrentThreadCpuTime();
				x = hotA(x | 1);
				inA += threads.getCurrentThreadCpuTime() - t;
			}
			long t = threads.getCurrentThreadCpuTime();
			x = hotB(x | 1);
			inB += threads.getCurrentThreadCpuTime() - t;
		}
		double total = os.getProcessCpuTime();
		System.out.printf("pid %d hotA %.1f hotB %.1f sink %d%n", ProcessHandle.current().pid(),
				  100.0 * inA / total, 100.0 * inB / total, x);
	}
}

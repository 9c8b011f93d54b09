/* SPDX-License-Identifier: GPL-2.0-or-later */
//
// cxx-workload: C++ functions with known shares of the CPU time, for
// tests/test-report-cxx.sh, which builds it at test time with
//   g++ -O1 -g -fno-omit-frame-pointer
// (configure has no C++ compiler check).  Its symbols are mangled as C++
// compilers do; perfrec-report must show them demangled, as c++filt does:
//
//   ns::Worker::spin(int)                       about 40 %  (a class method)
//   void ns::burn<int>(int)                     about 25 %  (a template)
//   void ns::burn<double>(double)               about 15 %  (its other instance)
//   ns::inner::Matrix<3>::step(unsigned long)   about 10 %  (a class template,
//                                               in a nested namespace)
//   (anonymous namespace)::local_spin(int)      about 10 %  (internal linkage)
//
// Each spins until its thread has spent its part of a 10 ms round in it,
// measured with the thread's CPU clock, as tests/workload does.
//
//   cxx-workload [SECONDS]     (default 2)

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

std::uint64_t thread_cpu_ns()
{
	timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
}

volatile std::uint64_t sink;

// Runs the statement that follows until budget_ns of this thread's CPU
// time have gone (a macro, not a function taking a lambda: the loop stays
// in the function that burns, whatever the compiler inlines).
#define FOR_CPU_TIME(budget_ns)						\
	for (std::uint64_t start_ = thread_cpu_ns();			\
	     thread_cpu_ns() - start_ < (budget_ns);)			\
		for (int i = 0; i < 20000; i++)

__attribute__((noinline)) void local_spin(int rounds);

} // namespace

namespace ns {

class Worker {
public:
	explicit Worker(std::uint64_t seed) : state_(seed) {}
	__attribute__((noinline)) void spin(int rounds);
	std::uint64_t state() const { return state_; }

private:
	std::uint64_t state_;
};

void Worker::spin(int rounds)
{
	std::uint64_t x = state_;

	FOR_CPU_TIME(std::uint64_t(rounds) * 4000000u) {
		x = x * 6364136223846793005ull + std::uint64_t(i);
		__asm__ volatile("" : "+r"(x));
	}
	state_ = x;
}

template <typename T>
__attribute__((noinline)) void burn(T seed)
{
	T x = seed;
	std::uint64_t budget = sizeof(T) == sizeof(int) ? 2500000u : 1500000u;

	FOR_CPU_TIME(budget) {
		x = x * T(3) + T(i % 7);
		__asm__ volatile("" : "+m"(x));
	}
	sink = std::uint64_t(x);
}

template void burn<int>(int);
template void burn<double>(double);

namespace inner {

template <int N>
class Matrix {
public:
	__attribute__((noinline)) std::uint64_t step(std::uint64_t rounds);

private:
	std::uint64_t cells_[N][N] = {};
};

template <int N>
std::uint64_t Matrix<N>::step(std::uint64_t rounds)
{
	FOR_CPU_TIME(rounds * 1000000u) {
		for (int r = 0; r < N; r++)
			for (int c = 0; c < N; c++)
				cells_[r][c] = cells_[r][c] * 31 + std::uint64_t(i + r - c);
		__asm__ volatile("" : : "r"(&cells_[0][0]) : "memory");
	}
	return cells_[N - 1][N - 1];
}

template class Matrix<3>;

} // namespace inner
} // namespace ns

namespace {

void local_spin(int rounds)
{
	std::uint64_t x = std::uint64_t(rounds);

	FOR_CPU_TIME(std::uint64_t(rounds) * 1000000u) {
		x ^= x << 13;
		x ^= x >> 7;
		x += std::uint64_t(i);
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}

} // namespace

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::atof(argv[1]) : 2;
	timespec start, now;
	ns::Worker worker(42);
	ns::inner::Matrix<3> matrix;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		worker.spin(1);
		ns::burn<int>(7);
		ns::burn<double>(1.5);
		sink = matrix.step(1);
		local_spin(1);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (double(now.tv_sec - start.tv_sec) + double(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	std::printf("%llu\n", static_cast<unsigned long long>(worker.state() + sink));
	return 0;
}

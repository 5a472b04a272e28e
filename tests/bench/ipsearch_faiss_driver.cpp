// ipsearch_faiss_driver.cpp: the other side of tests/bench/ipsearch_vs_faiss.sh. Not part of
// the CMake build: the script compiles it into a temporary directory against Debian's
// libfaiss-dev (a static libfaiss.a linked with the system BLAS, i.e. OpenBLAS through the
// alternatives) and runs it.
//
//   driver search NB NQ DIM K SEED ITERATIONS   faiss::IndexFlatIP on streamcard-ipsearch's
//                                               data; prints checksums and the best search
//   driver peak N REPS                          OpenBLAS sgemm N x N x N: the GFLOP/s peak,
//                                               per wall second and per CPU second
//
// The data are rebuilt with streamcard-ipsearch's generator (kernels/ipsearch_engine.c:
// splitmix64's mixer, uniform [0,1) with 24 bits) and the checksums use its formulas, so the
// script can check that both sides searched the same vectors and found the same ids.
// OpenMP threads come from OMP_NUM_THREADS, BLAS threads from OPENBLAS_NUM_THREADS.
#include <faiss/IndexFlat.h>

#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

extern "C" void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                       const float *alpha, const float *a, const int *lda, const float *b,
                       const int *ldb, const float *beta, float *c, const int *ldc);

namespace {

const uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// sct_ips_value(): stream 1 is the database, 2 the queries.
void fill(std::vector<float> &v, uint64_t seed, uint64_t stream)
{
    uint64_t key = mix(seed ^ stream);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < v.size(); i++)
        v[i] = (float)(mix(key + (i + 1) * kGolden) >> 40) * (1.0f / 16777216.0f);
}

// sct_ips_checksum().
uint64_t checksum(const std::vector<float> &v)
{
    uint64_t h = 0;
    for (size_t i = 0; i < v.size(); i++) {
        uint32_t bits;
        std::memcpy(&bits, &v[i], sizeof(bits));
        h ^= mix(i * kGolden ^ bits);
    }
    return h;
}

// sct_ips_results_checksum().
uint64_t results_checksum(const std::vector<faiss::Index::idx_t> &ids, size_t nq, size_t k)
{
    uint64_t h = 0;
    for (size_t q = 0; q < nq; q++) {
        uint64_t chain = mix(q + 1);
        for (size_t j = 0; j < k; j++)
            chain = mix(chain ^ (uint64_t)ids[q * k + j]);
        h ^= chain;
    }
    return h;
}

// CPU seconds of the whole process (every thread, spinning included).
double cpu_now()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int search(size_t nb, size_t nq, size_t dim, size_t k, uint64_t seed, int iterations)
{
    std::vector<float> db(nb * dim), q(nq * dim), dist(nq * k);
    std::vector<faiss::Index::idx_t> ids(nq * k);

    fill(db, seed, 1);
    fill(q, seed, 2);
    std::printf("database_checksum=0x%016llx\nqueries_checksum=0x%016llx\n",
                (unsigned long long)checksum(db), (unsigned long long)checksum(q));
    faiss::IndexFlatIP index((faiss::Index::idx_t)dim);
    index.add((faiss::Index::idx_t)nb, db.data());
    double best = 0, best_cpu = 0;
    for (int it = 0; it < iterations; it++) { // the first is a warm-up, as in the kernel
        double t0 = now(), c0 = cpu_now();
        index.search((faiss::Index::idx_t)nq, q.data(), (faiss::Index::idx_t)k, dist.data(),
                     ids.data());
        double t = now() - t0, c = cpu_now() - c0;
        if (it == 1 || (it > 1 && t < best))
            best = t;
        if (it == 1 || (it > 1 && c < best_cpu))
            best_cpu = c;
    }
    std::printf("omp_threads=%d\nwall_seconds=%.6f\ncpu_seconds=%.6f\nqps=%.1f\ngflops=%.2f\n",
                omp_get_max_threads(), best, best_cpu, (double)nq / best,
                2e-9 * (double)nb * (double)nq * (double)dim / best);
    std::printf("results_checksum=0x%016llx\n",
                (unsigned long long)results_checksum(ids, nq, k));
    return 0;
}

int peak(int n, int reps)
{
    std::vector<float> a((size_t)n * n, 0.5f), b((size_t)n * n, 0.25f), c((size_t)n * n);
    const float one = 1, zero = 0;
    double best = 0, best_cpu = 0;

    for (int r = 0; r <= reps; r++) { // r == 0: warm-up (thread start, page faults)
        double t0 = now(), c0 = cpu_now();
        sgemm_("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n);
        double t = now() - t0, c = cpu_now() - c0;
        if (r == 1 || (r > 1 && t < best))
            best = t;
        if (r == 1 || (r > 1 && c < best_cpu))
            best_cpu = c;
    }
    // Wall: the machine's peak with these threads; per CPU second: one thread's, which a
    // loaded machine disturbs much less.
    std::printf("sgemm_peak_gflops=%.2f\nsgemm_peak_gflops_per_cpu_second=%.2f\n",
                2e-9 * (double)n * n * n / best, 2e-9 * (double)n * n * n / best_cpu);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 8 && std::strcmp(argv[1], "search") == 0)
        return search(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10),
                      std::strtoull(argv[4], nullptr, 10), std::strtoull(argv[5], nullptr, 10),
                      std::strtoull(argv[6], nullptr, 10), std::atoi(argv[7]));
    if (argc == 4 && std::strcmp(argv[1], "peak") == 0)
        return peak(std::atoi(argv[2]), std::atoi(argv[3]));
    std::fprintf(stderr, "usage: %s search NB NQ DIM K SEED ITERATIONS | peak N REPS\n", argv[0]);
    return 2;
}

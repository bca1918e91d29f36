/*
 * redis_geo_bench: a pgbench-like load generator for Redis GEOSEARCH.
 *
 * Why not redis-benchmark: it repeats one fixed command (its __rand_int__
 * placeholder cannot make a random longitude/latitude), and the cost of a
 * GEOSEARCH depends on where the centre falls. This client draws a random
 * centre per request from the same distributions as the pgbench scripts.
 *
 * Made to be comparable with pgbench: each client is its own process with one
 * connection, sends one request, waits for and parses the whole reply (every
 * member, as libpq receives every row), then sends the next. tps is the sum
 * over clients of requests / elapsed seconds, connection time excluded, as
 * pgbench's "tps ... (without initial connection time)".
 *
 * usage: redis_geo_bench (-s SOCKET | -h HOST -p PORT) -k KEY -c CLIENTS -T SECONDS
 *          -r RADIUS_KM [-n COUNT] (--box LON0 LON1 LAT0 LAT1 | --sphere) [-S SEED]
 *   --box    centres uniform in the lon/lat box
 *   --sphere centres uniform on the sphere (lat = asin(2u - 1))
 *   -n       ASC COUNT n (k-NN); without it, every member within the radius
 * prints: tps=<float> requests=<int> avg_ms=<float> avg_members=<float>
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

struct opts {
    const char *sock, *host, *key;
    int port, clients, count, sphere;
    double seconds, radius_km, lon0, lon1, lat0, lat1;
    unsigned long seed;
};

struct result {
    long requests;
    long members;
    double elapsed_s;
    double latency_s;
    int error;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: small, deterministic per seed, good enough for centres. */
static double uniform01(unsigned long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double) ((*s * 2685821657736338717UL) >> 11) / 9007199254740992.0;
}

static void usage(void)
{
    fprintf(stderr, "usage: redis_geo_bench (-s SOCKET | -h HOST -p PORT) -k KEY -c CLIENTS -T SECONDS "
                    "-r RADIUS_KM [-n COUNT] (--box LON0 LON1 LAT0 LAT1 | --sphere) [-S SEED]\n");
    exit(2);
}

static struct result run_client(const struct opts *o, int client_no)
{
    struct result r = {0};
    unsigned long rng = o->seed * 1000003UL + (unsigned long) client_no * 7919UL + 1;
    redisContext *c = o->sock ? redisConnectUnix(o->sock) : redisConnect(o->host, o->port);
    if (c == NULL || c->err) {
        fprintf(stderr, "redis_geo_bench: connect: %s\n", c ? c->errstr : "out of memory");
        r.error = 1;
        return r;
    }
    char lon_s[32], lat_s[32], rad_s[32], cnt_s[32];
    snprintf(rad_s, sizeof rad_s, "%.6f", o->radius_km);
    snprintf(cnt_s, sizeof cnt_s, "%d", o->count);
    const char *argv[11] = {"GEOSEARCH", o->key, "FROMLONLAT", lon_s, lat_s, "BYRADIUS", rad_s, "km",
                            "ASC", "COUNT", cnt_s};
    int argc = o->count > 0 ? 11 : 8;

    double start = now_s(), end = start + o->seconds;
    for (;;) {
        double lon, lat;
        if (o->sphere) {
            lon = -180.0 + 360.0 * uniform01(&rng);
            lat = asin(2.0 * uniform01(&rng) - 1.0) * 180.0 / M_PI;
            /* Redis cannot index beyond +-85.05112878: ask from its edge. */
            if (lat > 85.05) lat = 85.05;
            if (lat < -85.05) lat = -85.05;
        } else {
            lon = o->lon0 + (o->lon1 - o->lon0) * uniform01(&rng);
            lat = o->lat0 + (o->lat1 - o->lat0) * uniform01(&rng);
        }
        snprintf(lon_s, sizeof lon_s, "%.6f", lon);
        snprintf(lat_s, sizeof lat_s, "%.6f", lat);
        double t0 = now_s();
        redisReply *reply = redisCommandArgv(c, argc, argv, NULL);
        double t1 = now_s();
        if (reply == NULL || reply->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "redis_geo_bench: %s\n", reply ? reply->str : c->errstr);
            r.error = 1;
            if (reply) freeReplyObject(reply);
            break;
        }
        r.members += (long) reply->elements;
        freeReplyObject(reply);
        r.requests++;
        r.latency_s += t1 - t0;
        if (t1 >= end) break;
    }
    r.elapsed_s = now_s() - start;
    redisFree(c);
    return r;
}

int main(int argc, char **argv)
{
    struct opts o = {0};
    o.clients = 1;
    o.seconds = 5;
    o.seed = 42;
    o.host = "127.0.0.1";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (usage(), ""))
        if (!strcmp(a, "-s")) o.sock = NEXT();
        else if (!strcmp(a, "-h")) o.host = NEXT();
        else if (!strcmp(a, "-p")) o.port = atoi(NEXT());
        else if (!strcmp(a, "-k")) o.key = NEXT();
        else if (!strcmp(a, "-c")) o.clients = atoi(NEXT());
        else if (!strcmp(a, "-T")) o.seconds = atof(NEXT());
        else if (!strcmp(a, "-r")) o.radius_km = atof(NEXT());
        else if (!strcmp(a, "-n")) o.count = atoi(NEXT());
        else if (!strcmp(a, "-S")) o.seed = strtoul(NEXT(), NULL, 10);
        else if (!strcmp(a, "--sphere")) o.sphere = 1;
        else if (!strcmp(a, "--box")) {
            o.lon0 = atof(NEXT());
            o.lon1 = atof(NEXT());
            o.lat0 = atof(NEXT());
            o.lat1 = atof(NEXT());
        } else usage();
#undef NEXT
    }
    if (!o.key || o.radius_km <= 0 || o.clients < 1 || (!o.sock && o.port <= 0)) usage();

    /* One process per client, results back through a pipe. */
    int fds[2];
    if (pipe(fds) != 0) { perror("pipe"); return 1; }
    for (int k = 0; k < o.clients; k++) {
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 1; }
        if (pid == 0) {
            close(fds[0]);
            struct result r = run_client(&o, k);
            if (write(fds[1], &r, sizeof r) != (ssize_t) sizeof r) _exit(1);
            _exit(0);
        }
    }
    close(fds[1]);
    struct result total = {0};
    double tps = 0;
    for (int k = 0; k < o.clients; k++) {
        struct result r;
        if (read(fds[0], &r, sizeof r) != (ssize_t) sizeof r) { total.error = 1; continue; }
        total.requests += r.requests;
        total.members += r.members;
        total.latency_s += r.latency_s;
        total.error |= r.error;
        if (r.elapsed_s > 0) tps += r.requests / r.elapsed_s;
    }
    while (wait(NULL) > 0 || errno == EINTR) {}
    if (total.error || total.requests == 0) {
        fprintf(stderr, "redis_geo_bench: failed\n");
        return 1;
    }
    printf("tps=%.3f requests=%ld avg_ms=%.4f avg_members=%.1f\n", tps, total.requests,
           1000.0 * total.latency_s / total.requests, (double) total.members / total.requests);
    return 0;
}

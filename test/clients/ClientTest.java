// geoidx through the PostgreSQL JDBC driver with server-side prepared statements,
// checked against PostGIS.
//
//   java -cp /usr/share/java/postgresql.jar test/clients/ClientTest.java "jdbc:postgresql://HOST:PORT/DB?user=U"
//
// The database must hold the extension and the table pts(id, cat, pos) with geoidx
// indexes on it (test/clients/run loads them). Every geoidx answer is compared with
// PostGIS's geography answer computed on a second connection that cannot use an
// index; every statement must end up on a generic plan that scans a geoidx index
// with its parameters unknown at plan time. Exits 1 on any mismatch.

import java.sql.*;
import java.util.*;
import java.util.regex.*;

public class ClientTest {
    static final double[][] CENTRES = {
        {2.35, 48.86},     // inside a dense cluster
        {-60.0, 20.0},     // a cluster ~10 m across: thousands of points at almost one distance
        {-73.98, 40.75},
        {179.99, 5.0},     // just west of the antimeridian: answers come from both sides
        {-180.0, -3.0},    // on it
        {0.0, 90.0},       // the north pole: hundreds of points at distance 0 (ties)
        {45.0, -89.9},     // next to the south pole
        {112.0, -7.0},
    };
    // Largest first: the plan cache compares a generic plan with the average of the
    // first custom ones, and geoidx estimates a small circle as cheaper than the
    // generic plan's default guess, so small radii first would keep it custom.
    static final double[] RADII = {5000000.0, 300000.0, 5000.0, 100.0};
    static final int[] KS = {1, 10, 100, 1000};
    static final int[] CAT_KS = {10, 100};

    // The leading comment finds each statement in pg_prepared_statements.
    static final String RADIUS = "/* client:radius */ SELECT id FROM pts"
        + " WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(?, ?), 4326), ?)";
    static final String KNN = "/* client:knn */ SELECT id, pos <~> ST_SetSRID(ST_MakePoint(?, ?), 4326) AS metres"
        + " FROM pts ORDER BY metres LIMIT ?";
    // The centre as an EWKT text parameter this time, and a filter on the second key column.
    static final String KNN_CAT = "/* client:knn_cat */ SELECT id, pos <~> ?::geometry AS metres FROM pts"
        + " WHERE cat = ? ORDER BY metres LIMIT ?";

    static final String REF_RADIUS = "SELECT id FROM pts WHERE ST_DWithin(pos::geography,"
        + " ST_SetSRID(ST_MakePoint(?, ?), 4326)::geography, ?)";
    // WITH TIES: every row tied with the k-th, so that any choice among them can be accepted.
    static final String REF_KNN = "SELECT id, ST_Distance(pos::geography, ST_SetSRID(ST_MakePoint(?, ?), 4326)::geography) AS d"
        + " FROM pts WHERE ?::int IS NULL OR cat = ? ORDER BY d FETCH FIRST ? ROWS WITH TIES";

    record Row(int id, double d) {}

    static int passed = 0, failed = 0;

    static void check(boolean ok, String what) {
        if (ok) {
            passed++;
        } else {
            failed++;
            System.out.println("FAIL: " + what);
        }
    }

    static Connection test, ref;
    static String lastPlan = "";

    /** Binds args in order, a null as an int NULL. */
    static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a == null) ps.setNull(i + 1, Types.INTEGER);
            else if (a instanceof Double x) ps.setDouble(i + 1, x);
            else if (a instanceof Integer x) ps.setInt(i + 1, x);
            else ps.setString(i + 1, (String) a);
        }
    }

    /** Runs ps with args; on the test connection, keeps the plan auto_explain sent as a NOTICE. */
    static List<Row> run(PreparedStatement ps, Object... args) throws SQLException {
        bind(ps, args);
        ps.clearWarnings();
        List<Row> rows = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            boolean withDistance = rs.getMetaData().getColumnCount() > 1;
            while (rs.next()) rows.add(new Row(rs.getInt(1), withDistance ? rs.getDouble(2) : Double.NaN));
        }
        if (ps.getConnection() == test) {
            List<String> plans = new ArrayList<>();
            for (SQLWarning w = ps.getWarnings(); w != null; w = w.getNextWarning())
                if (w.getMessage().contains("plan:")) plans.add(w.getMessage());
            lastPlan = plans.size() == 1 ? plans.get(0) : "";
        }
        return rows;
    }

    static long[] planCounts(String tag) throws SQLException {
        try (PreparedStatement ps = test.prepareStatement("SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                + " WHERE NOT from_sql AND strpos(statement, ?) > 0")) {
            ps.setString(1, tag);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return null;
                long[] counts = {rs.getLong(1), rs.getLong(2)};
                return rs.next() ? null : counts;
            }
        }
    }

    static String tagOf(String sql) {
        return sql.substring(0, sql.indexOf("*/") + 2);
    }

    /** The last execution of the statement ran a generic plan scanning a geoidx index. */
    static void proveGeneric(String sql, Set<String> indexes, String cond) throws SQLException {
        String tag = tagOf(sql);
        long[] counts = planCounts(tag);
        check(counts != null && counts[0] > 0, tag + ": no generic plan in pg_prepared_statements "
            + (counts == null ? "(no single row)" : "(generic " + counts[0] + ", custom " + counts[1] + ")"));
        Matcher scan = Pattern.compile("(?:Index Scan|Index Only Scan) using (\\S+)|Bitmap Index Scan on (\\S+)").matcher(lastPlan);
        boolean found = scan.find();
        check(found && indexes.contains(scan.group(1) != null ? scan.group(1) : scan.group(2)),
            tag + ": the last execution scanned no geoidx index:\n" + lastPlan);
        // A custom plan shows the values; only a generic one keeps $n in the index condition.
        boolean param = lastPlan.lines().map(String::strip)
            .anyMatch(l -> l.startsWith(cond) && Pattern.compile("\\$\\d+").matcher(l).find());
        check(param, tag + ": no $n parameter in '" + cond + "' of the last execution's plan:\n" + lastPlan);
        System.out.printf("  %s: %s generic, %s custom plans; last plan: %s%n", tag.replaceAll("[/* ]", ""),
            counts == null ? "?" : counts[0], counts == null ? "?" : counts[1], found ? scan.group() : "?");
    }

    /** Why the k-NN rows got differ from PostGIS's want (ordered, with ties), or null. */
    static String knnMismatch(List<Row> got, List<Row> want, int k) {
        int n = Math.min(k, want.size());
        if (got.size() != n) return got.size() + " rows, PostGIS " + n;
        for (int i = 0; i < n; i++)
            if (!(got.get(i).d() == want.get(i).d()))  // float8 equality, in order
                return "distance #" + i + " is " + got.get(i).d() + ", PostGIS " + want.get(i).d();
        Map<Double, Set<Integer>> have = byDistance(got), all = byDistance(want);
        if (have.values().stream().mapToInt(Set::size).sum() != got.size()) return "a row is returned twice";
        double last = n > 0 ? got.get(n - 1).d() : Double.NaN;
        for (var e : have.entrySet()) {
            Set<Integer> ids = e.getValue(), refIds = all.get(e.getKey());
            // The rows tied at the last distance may be any of those PostGIS has there.
            boolean ok = ids.equals(refIds) || (e.getKey() == last && refIds.containsAll(ids));
            if (!ok) return "ids at distance " + e.getKey() + ": " + ids + " vs PostGIS " + refIds;
        }
        return null;
    }

    static Map<Double, Set<Integer>> byDistance(List<Row> rows) {
        Map<Double, Set<Integer>> m = new HashMap<>();
        for (Row r : rows) m.computeIfAbsent(r.d(), x -> new HashSet<>()).add(r.id());
        return m;
    }

    static final Map<String, List<Row>> refs = new HashMap<>();

    static void knnBattery(PreparedStatement ps, PreparedStatement refKnn, boolean withCat, int[] ks) throws SQLException {
        for (int i = 0; i < CENTRES.length; i++) {
            double lon = CENTRES[i][0], lat = CENTRES[i][1];
            Integer cat = withCat ? i % 10 : null;
            for (int k : ks) {
                String key = lon + " " + lat + " " + cat + " " + k;
                if (!refs.containsKey(key)) refs.put(key, run(refKnn, lon, lat, cat, cat, k));
                List<Row> got = withCat
                    ? run(ps, "SRID=4326;POINT(" + lon + " " + lat + ")", cat, k)
                    : run(ps, lon, lat, k);
                String why = knnMismatch(got, refs.get(key), k);
                check(why == null, tagOf(withCat ? KNN_CAT : KNN) + " (" + lon + ", " + lat + ") cat " + cat + " k " + k + ": " + why);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java -cp /usr/share/java/postgresql.jar ClientTest.java JDBC_URL");
            System.exit(2);
        }
        Properties props = new Properties();
        props.setProperty("prepareThreshold", "1");  // a named server-side statement from the first execution
        test = DriverManager.getConnection(args[0], props);
        ref = DriverManager.getConnection(args[0]);
        try (Statement st = test.createStatement()) {
            st.execute("LOAD 'auto_explain'");
            st.execute("SET auto_explain.log_min_duration = 0");
            st.execute("SET auto_explain.log_level = notice");
        }
        Set<String> indexes = new HashSet<>();
        try (Statement st = ref.createStatement()) {
            for (String s : new String[] {"enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan"})
                st.execute("SET " + s + " = off");
            try (ResultSet rs = st.executeQuery("SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                    + " JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = 'pts'::regclass AND a.amname = 'geoidx'")) {
                while (rs.next()) indexes.add(rs.getString(1));
            }
            check(!indexes.isEmpty(), "pts has no geoidx index");
            StringBuilder plan = new StringBuilder();
            try (PreparedStatement explain = ref.prepareStatement("EXPLAIN " + REF_KNN)) {
                bind(explain, 0.0, 0.0, null, null, 10);
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) plan.append(rs.getString(1)).append('\n');
                }
            }
            check(plan.toString().contains("Seq Scan") && indexes.stream().noneMatch(i -> plan.toString().contains(i)),
                "the PostGIS reference is not a sequential scan:\n" + plan);
        }

        try (PreparedStatement radius = test.prepareStatement(RADIUS);
             PreparedStatement knn = test.prepareStatement(KNN);
             PreparedStatement knnCat = test.prepareStatement(KNN_CAT);
             PreparedStatement refRadius = ref.prepareStatement(REF_RADIUS);
             PreparedStatement refKnn = ref.prepareStatement(REF_KNN);
             Statement st = test.createStatement()) {
            System.out.println("radius: geoidx_dwithin vs ST_DWithin(geography)");
            for (double r : RADII) {
                for (double[] c : CENTRES) {
                    List<Row> got = run(radius, c[0], c[1], r);
                    Set<Integer> gotIds = new HashSet<>(), want = new HashSet<>();
                    got.forEach(x -> gotIds.add(x.id()));
                    run(refRadius, c[0], c[1], r).forEach(x -> want.add(x.id()));
                    Set<Integer> onlyGeoidx = new TreeSet<>(gotIds), onlyPostgis = new TreeSet<>(want);
                    onlyGeoidx.removeAll(want);
                    onlyPostgis.removeAll(gotIds);
                    check(gotIds.size() == got.size() && gotIds.equals(want),
                        String.format("radius (%s, %s) %s m: %d rows, PostGIS %d; only geoidx: %s, only PostGIS: %s",
                            c[0], c[1], r, got.size(), want.size(), onlyGeoidx, onlyPostgis));
                }
            }
            proveGeneric(RADIUS, indexes, "Index Cond:");

            System.out.println("k-NN: ORDER BY pos <~> c LIMIT k vs ORDER BY ST_Distance(geography), plan_cache_mode = auto");
            knnBattery(knn, refKnn, false, KS);
            knnBattery(knnCat, refKnn, true, CAT_KS);
            for (String sql : new String[] {KNN, KNN_CAT}) {
                long[] counts = planCounts(tagOf(sql));
                System.out.printf("  %s: %s generic, %s custom plans%n", tagOf(sql).replaceAll("[/* ]", ""),
                    counts == null ? "?" : counts[0], counts == null ? "?" : counts[1]);
            }
            // PostgreSQL costs LIMIT $n as 10 % of the rows, so under auto the generic plan
            // of a small-k query looks dearer than every custom one and is never chosen:
            // force it to run geoidx's k-NN with the centre and k unknown at plan time.
            System.out.println("k-NN again, plan_cache_mode = force_generic_plan");
            st.execute("SET plan_cache_mode = force_generic_plan");
            knnBattery(knn, refKnn, false, KS);
            proveGeneric(KNN, indexes, "Order By:");
            knnBattery(knnCat, refKnn, true, CAT_KS);
            proveGeneric(KNN_CAT, indexes, "Order By:");
        }
        test.close();
        ref.close();
        System.out.println("jdbc: " + passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}

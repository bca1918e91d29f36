// The 10 points nearest to a place, and how many lie within a radius, with geoidx.
//
//   java -cp /usr/share/java/postgresql.jar examples/java/Nearby.java "jdbc:postgresql://localhost:5432/mydb?user=me"
//
// The first run creates the extension (if it can) and a demo table of 20,000
// points around Paris with a geoidx index; later runs reuse them.

import java.sql.*;
import java.util.Locale;

public class Nearby {
    static final String CENTRE = "SRID=4326;POINT(2.3522 48.8566)";  // EWKT, cast to geometry in the SQL
    static final double RADIUS = 1000.0;                              // metres
    static final int K = 10;

    // The points come from PostgreSQL's own seeded random(), so every client that
    // runs this creates the same table.
    static final String[] SETUP = {
        "CREATE EXTENSION IF NOT EXISTS geoidx CASCADE",
        "CREATE TABLE nearby_demo (id int PRIMARY KEY, cat int NOT NULL, pos geometry(Point, 4326) NOT NULL)",
        "SELECT setseed(0.42)",
        "INSERT INTO nearby_demo SELECT i, i % 8, ST_SetSRID(ST_MakePoint(2.3522 + 0.3 * (random() - 0.5),"
            + " 48.8566 + 0.2 * (random() - 0.5)), 4326) FROM generate_series(1, 20000) i",
        "CREATE INDEX nearby_demo_pos ON nearby_demo USING geoidx (pos)",
        "ANALYZE nearby_demo",
    };

    // setString sends a varchar, hence the cast; ORDER BY metres is ORDER BY pos <~> centre.
    static final String NEAREST = "SELECT id, cat, pos <~> ?::geometry AS metres FROM nearby_demo"
        + " ORDER BY metres LIMIT ?";
    static final String WITHIN = "SELECT count(*) FROM nearby_demo WHERE geoidx_dwithin(pos, ?::geometry, ?)";

    public static void main(String[] args) throws SQLException {
        if (args.length != 1) {
            System.err.println("usage: java -cp /usr/share/java/postgresql.jar Nearby.java JDBC_URL");
            System.exit(2);
        }
        Locale.setDefault(Locale.ROOT);  // "12.34 m" whatever the machine's locale
        try (Connection conn = DriverManager.getConnection(args[0])) {
            try (Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT to_regclass('nearby_demo') IS NULL")) {
                rs.next();
                if (rs.getBoolean(1)) {
                    for (String sql : SETUP) st.execute(sql);  // autocommit: one session, so setseed holds
                    System.out.println("created table nearby_demo: 20000 points, geoidx index nearby_demo_pos");
                }
            }

            // Bound parameters, never string concatenation.
            try (PreparedStatement ps = conn.prepareStatement(NEAREST)) {
                ps.setString(1, CENTRE);
                ps.setInt(2, K);
                try (ResultSet rs = ps.executeQuery()) {
                    System.out.printf("the %d nearest to %s:%n", K, CENTRE);
                    System.out.printf("%8s %4s %10s%n", "id", "cat", "metres");
                    while (rs.next())
                        System.out.printf("%8d %4d %10.2f%n", rs.getInt("id"), rs.getInt("cat"), rs.getDouble("metres"));
                }
            }

            try (PreparedStatement ps = conn.prepareStatement(WITHIN)) {
                ps.setString(1, CENTRE);
                ps.setDouble(2, RADIUS);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    System.out.printf("within %.0f m: %d%n", RADIUS, rs.getLong(1));
                }
            }
        }
    }
}

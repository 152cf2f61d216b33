package dev.toolyard.benchmarks.report;

import java.util.Map;

/** Conversions between JMH's time-per-operation units and between its operations-per-time units. */
final class Units {
    private static final Map<String, Double> SECONDS = Map.of("ns", 1e-9, "us", 1e-6, "ms", 1e-3, "s", 1.0);

    private Units() {}

    /** @return what a value in {@code from} is multiplied by to be in {@code to}; NaN if they do not convert */
    static double factor(String from, String to) {
        if (from.endsWith("/op") && to.endsWith("/op")) {
            Double a = SECONDS.get(from.substring(0, from.length() - 3));
            Double b = SECONDS.get(to.substring(0, to.length() - 3));
            return a == null || b == null ? Double.NaN : a / b;
        }
        if (from.startsWith("ops/") && to.startsWith("ops/")) {
            Double a = SECONDS.get(from.substring(4));
            Double b = SECONDS.get(to.substring(4));
            return a == null || b == null ? Double.NaN : b / a;
        }
        return Double.NaN;
    }

    /** @return the unit for people: {@code µs/op} rather than {@code us/op} */
    static String display(String unit) {
        return unit.replace("us/", "µs/").replace("/us", "/µs");
    }
}

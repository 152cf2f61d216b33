package dev.toolyard.benchmarks.report;

import java.util.List;

/**
 * One row of the results: a figure, the baseline it is read against (from the same run), and the
 * targets it is judged by.
 *
 * @param id a stable name for the row, used in latest.json
 * @param title what is measured, for people
 * @param figure the benchmark key of the figure ({@code Class.method} or {@code Class.method:param=value})
 * @param baseline the benchmark key of its baseline, or {@code null} when the row has none
 * @param metric the time (or throughput) JMH measured, or the bytes allocated per operation
 * @param targets the targets; empty for a row that only reports
 * @param pending why the row may be absent from a run (a module not merged yet), or {@code null}
 * @param limitedBy what the profile says limits the figure, printed when a target is missed; or {@code null}
 */
record Row(String id, String title, String figure, String baseline, Metric metric, List<Target> targets,
        String pending, String limitedBy) {

    /** Which number of a JMH result a row reads. */
    enum Metric {
        /** JMH's primary metric: time per operation or operations per time. */
        SCORE,
        /** {@code gc.alloc.rate.norm} from {@code -prof gc}, bytes per operation. */
        ALLOCATION
    }

    /** @return {ratio, error}, or {@code null} when either side is missing or their units do not convert */
    static double[] ratio(Measured figure, Measured baseline) {
        if (figure == null || baseline == null) {
            return null;
        }
        Measured b = baseline.in(figure.unit());
        if (b == null || b.score() == 0) {
            return null;
        }
        double r = figure.score() / b.score();
        double e = r * Math.hypot(figure.error() / figure.score(), b.error() / b.score());
        return new double[] {r, e};
    }
}

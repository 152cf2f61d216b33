package dev.toolyard.benchmarks;

import java.util.Arrays;

/** Mean, standard deviation and median for the paired runs that complement JMH's forks. */
final class Stats {
    private Stats() {}

    static double mean(double[] v) {
        double s = 0;
        for (double x : v) {
            s += x;
        }
        return s / v.length;
    }

    static double sd(double[] v, double mean) {
        double s = 0;
        for (double x : v) {
            s += (x - mean) * (x - mean);
        }
        return Math.sqrt(s / Math.max(1, v.length - 1));
    }

    static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }
}

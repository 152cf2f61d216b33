/**
 * How the ladder is built: the probe, the command lines of each rung, the pids cgroups, and the
 * supervisor that runs, caps and kills. Not exported: these types may change in any release.
 */
package dev.toolyard.sandbox.internal;

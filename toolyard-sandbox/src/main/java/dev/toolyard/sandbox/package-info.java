/**
 * The isolation ladder: {@link dev.toolyard.sandbox.TieredSandbox} implements the core's
 * {@link dev.toolyard.spi.Sandbox} port with a container rung (podman, then docker), a bubblewrap rung,
 * and refusal when neither works; {@link dev.toolyard.sandbox.IsolationReport} says which was chosen
 * and why; {@link dev.toolyard.sandbox.ResourceLimits} are applied on every rung.
 */
package dev.toolyard.sandbox;

/**
 * Spring Boot auto-configuration of ToolYard for Spring AI: {@link
 * dev.toolyard.springai.autoconfigure.ToolYardAutoConfiguration} and its {@code toolyard.*} properties.
 * Optional: it is active only when Spring Boot is on the class path.
 */
package dev.toolyard.springai.autoconfigure;

package dev.toolyard.builtins;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The variables a networked {@code run_command} adds to the application's environment so that tools
 * find the relay: the common proxy variables, and the settings of the tools that ignore them or read
 * their own first (npm, yarn, pip, git; JVM tools, which read no variable at all, through
 * {@code JAVA_TOOL_OPTIONS}). {@code NO_PROXY} names loopback only: nothing else is reachable directly.
 * Stateless.
 */
final class ProxyEnvironment {
    private static final String NO_PROXY = "localhost,127.0.0.1,::1";

    private ProxyEnvironment() {}

    /**
     * @param env the application's checked environment
     * @param port the relay's port on 127.0.0.1
     * @return {@code env} with the proxy variables added, sorted by name
     * @throws IllegalArgumentException if {@code env} sets one of the variables it adds, other than
     *     {@code JAVA_TOOL_OPTIONS}
     */
    static Map<String, String> with(Map<String, String> env, int port) {
        String url = "http://127.0.0.1:" + port;
        Map<String, String> add = new LinkedHashMap<>();
        for (String name : new String[] {"HTTP_PROXY", "HTTPS_PROXY"}) {
            add.put(name, url);
            add.put(name.toLowerCase(Locale.ROOT), url);
        }
        add.put("NO_PROXY", NO_PROXY);
        add.put("no_proxy", NO_PROXY);
        // npm reads its own configuration before the common variables; yarn 1 reads npm's, yarn 2+ its own.
        add.put("npm_config_proxy", url);
        add.put("npm_config_https_proxy", url);
        add.put("npm_config_noproxy", NO_PROXY);
        add.put("YARN_HTTP_PROXY", url);
        add.put("YARN_HTTPS_PROXY", url);
        add.put("PIP_PROXY", url);
        // git honours http_proxy too, but a repository's own http.proxy would win over it; configuration
        // from the environment wins over every file.
        add.put("GIT_CONFIG_COUNT", "2");
        add.put("GIT_CONFIG_KEY_0", "http.proxy");
        add.put("GIT_CONFIG_VALUE_0", url);
        add.put("GIT_CONFIG_KEY_1", "https.proxy");
        add.put("GIT_CONFIG_VALUE_1", url);
        String jvm = "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=" + port + " -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort="
                + port + " -Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]";
        Map<String, String> out = new TreeMap<>(env);
        for (Map.Entry<String, String> e : add.entrySet()) {
            if (out.containsKey(e.getKey())) {
                throw new IllegalArgumentException("environment must not set " + e.getKey() + " for a command with network:"
                        + " the proxy sets it");
            }
            out.put(e.getKey(), e.getValue());
        }
        String tool = env.get("JAVA_TOOL_OPTIONS");
        out.put("JAVA_TOOL_OPTIONS", tool == null || tool.isBlank() ? jvm : tool + " " + jvm);
        return out;
    }
}

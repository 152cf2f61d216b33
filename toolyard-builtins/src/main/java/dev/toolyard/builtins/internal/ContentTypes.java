package dev.toolyard.builtins.internal;

import dev.toolyard.Reason;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The content types {@code http_fetch} returns, and the charset to decode with. Allowed: {@code text/*},
 * {@code application/json} and {@code application/*+json}, compared case-insensitively on the media
 * type before the first {@code ;}. A missing type, an unparseable one, and several different
 * {@code Content-Type} headers are refused. The {@code charset} parameter is honoured when the JVM
 * knows the charset; otherwise, and when absent, the body is decoded as UTF-8. Stateless.
 */
final class ContentTypes {
    private static final Pattern MEDIA_TYPE =
            Pattern.compile("[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+");

    private ContentTypes() {}

    /** An accepted content type. */
    record Accepted(String mediaType, Charset charset) {}

    /**
     * @param values every {@code Content-Type} header of the response, in order
     * @return the accepted media type and the charset to decode with
     * @throws FetchProblem {@code content_type_not_allowed} when refused
     */
    static Accepted check(List<String> values) throws FetchProblem {
        if (values.isEmpty()) {
            throw refused("the response has no Content-Type");
        }
        String value = values.get(0).trim();
        for (String other : values) {
            if (!other.trim().equalsIgnoreCase(value)) {
                throw refused("the response has several different Content-Type headers");
            }
        }
        int semicolon = value.indexOf(';');
        String mediaType = (semicolon < 0 ? value : value.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
        if (!MEDIA_TYPE.matcher(mediaType).matches()) {
            throw refused("the response's Content-Type is not a media type");
        }
        String type = mediaType.substring(0, mediaType.indexOf('/'));
        String subtype = mediaType.substring(mediaType.indexOf('/') + 1);
        boolean allowed = type.equals("text")
                || (type.equals("application") && (subtype.equals("json") || subtype.endsWith("+json")));
        if (!allowed) {
            throw refused("content type '" + clip(mediaType) + "' is not fetched; only text/*, application/json and"
                    + " application/*+json are");
        }
        return new Accepted(mediaType, semicolon < 0 ? StandardCharsets.UTF_8 : charset(value.substring(semicolon + 1)));
    }

    private static Charset charset(String parameters) {
        for (String parameter : parameters.split(";")) {
            int eq = parameter.indexOf('=');
            if (eq < 0 || !parameter.substring(0, eq).trim().equalsIgnoreCase("charset")) {
                continue;
            }
            String name = parameter.substring(eq + 1).trim();
            if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
                name = name.substring(1, name.length() - 1);
            }
            try {
                return Charset.isSupported(name) ? Charset.forName(name) : StandardCharsets.UTF_8;
            } catch (IllegalCharsetNameException e) {
                return StandardCharsets.UTF_8;
            }
        }
        return StandardCharsets.UTF_8;
    }

    private static FetchProblem refused(String detail) {
        return new FetchProblem(Reason.CONTENT_TYPE_NOT_ALLOWED, detail);
    }

    private static String clip(String s) {
        return s.length() <= 100 ? s : s.substring(0, 100) + "…";
    }
}

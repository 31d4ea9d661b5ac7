package dev.lancelot.engine.internal.index.text;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.text.FullTextQuery;
import dev.lancelot.engine.index.text.TextQuery;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads a query tree from Lance's JSON form of full-text queries (decision D80): one of {@code
 * {"match": {"column", "terms", "boost", "operator", "fuzziness"}}}, {@code {"multi_match":
 * {"query", "columns", "boost", "operator"}}}, {@code {"boolean": {"must", "should", "must_not"}}}
 * and {@code {"boost": {"positive", "negative", "negative_boost"}}}. What lancelot does not answer
 * as Lance does (fuzzy matching, phrase queries) is refused by name.
 */
public final class TextQueryJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TextQueryJson() {}

  /** The query tree of {@code json}. */
  public static TextQuery parse(String json) {
    if (json == null || json.isBlank()) {
      throw new InvalidInputException("A full-text query in JSON needs a JSON object.");
    }
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new InvalidInputException(
          "Cannot read the full-text query JSON: " + e.getOriginalMessage());
    }
    return query(node, "query");
  }

  private static TextQuery query(JsonNode node, String where) {
    if (node == null || !node.isObject() || node.size() != 1) {
      throw bad(
          where, "must be an object with one key: match, multi_match, boolean, boost or phrase");
    }
    String kind = node.fieldNames().next();
    JsonNode body = node.get(kind);
    if (!body.isObject()) {
      throw bad(where + "." + kind, "must be an object");
    }
    String at = where + "." + kind;
    switch (kind) {
      case "match" -> {
        known(
            body,
            at,
            Set.of(
                "column",
                "terms",
                "boost",
                "operator",
                "fuzziness",
                "max_expansions",
                "prefix_length"));
        JsonNode fuzziness = body.get("fuzziness");
        if (fuzziness != null && !(fuzziness.isInt() && fuzziness.asInt() == 0)) {
          throw bad(at + ".fuzziness", "fuzzy matching is not supported yet (use 0)");
        }
        return new TextQuery.Match(
            text(body, "column", at),
            text(body, "terms", at),
            operator(body, at),
            number(body, "boost", 1.0f, at));
      }
      case "multi_match" -> {
        known(body, at, Set.of("query", "columns", "boost", "operator"));
        List<String> columns = new ArrayList<>();
        for (JsonNode c : array(body, "columns", at, true)) {
          if (!c.isTextual()) {
            throw bad(at + ".columns", "must be an array of column names");
          }
          columns.add(c.asText());
        }
        List<Float> boosts = null;
        if (body.has("boost")) {
          boosts = new ArrayList<>();
          for (JsonNode b : array(body, "boost", at, true)) {
            if (!b.isNumber()) {
              throw bad(at + ".boost", "must be an array of numbers");
            }
            boosts.add(b.floatValue());
          }
        }
        return new TextQuery.MultiMatch(
            text(body, "query", at), columns, boosts, operator(body, at));
      }
      case "boolean" -> {
        known(body, at, Set.of("must", "should", "must_not"));
        List<TextQuery.Clause> clauses = new ArrayList<>();
        for (TextQuery.Occur occur : TextQuery.Occur.values()) {
          String key = occur.name().toLowerCase(Locale.ROOT);
          int i = 0;
          for (JsonNode q : array(body, key, at, false)) {
            clauses.add(new TextQuery.Clause(occur, query(q, at + "." + key + "[" + i++ + "]")));
          }
        }
        return new TextQuery.Bool(clauses);
      }
      case "boost" -> {
        known(body, at, Set.of("positive", "negative", "negative_boost"));
        return new TextQuery.Boost(
            query(body.get("positive"), at + ".positive"),
            query(body.get("negative"), at + ".negative"),
            number(body, "negative_boost", TextQuery.Boost.DEFAULT_NEGATIVE_BOOST, at));
      }
      case "phrase" -> throw bad(at, "phrase queries are not supported yet");
      default ->
          throw bad(
              where,
              "has unknown query type " + kind + " (match, multi_match, boolean, boost, phrase)");
    }
  }

  private static void known(JsonNode body, String at, Set<String> keys) {
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!keys.contains(k)) {
        throw bad(at, "has unknown key " + k + " (known: " + keys.stream().sorted().toList() + ")");
      }
    }
  }

  private static String text(JsonNode body, String key, String at) {
    JsonNode v = body.get(key);
    if (v == null || !v.isTextual()) {
      throw bad(at + "." + key, "is required and must be a string");
    }
    return v.asText();
  }

  private static float number(JsonNode body, String key, float otherwise, String at) {
    JsonNode v = body.get(key);
    if (v == null || v.isNull()) {
      return otherwise;
    }
    if (!v.isNumber()) {
      throw bad(at + "." + key, "must be a number");
    }
    return v.floatValue();
  }

  private static FullTextQuery.Operator operator(JsonNode body, String at) {
    JsonNode v = body.get("operator");
    if (v == null || v.isNull()) {
      return FullTextQuery.Operator.OR;
    }
    String op = v.isTextual() ? v.asText().toUpperCase(Locale.ROOT) : "";
    if (!op.equals("AND") && !op.equals("OR")) {
      throw bad(at + ".operator", "must be \"And\" or \"Or\", not " + v);
    }
    return FullTextQuery.Operator.valueOf(op);
  }

  private static Iterable<JsonNode> array(JsonNode body, String key, String at, boolean required) {
    JsonNode v = body.get(key);
    if (v == null || v.isNull()) {
      if (required) {
        throw bad(at + "." + key, "is required");
      }
      return List.of();
    }
    if (!v.isArray()) {
      throw bad(at + "." + key, "must be an array");
    }
    return v;
  }

  private static InvalidInputException bad(String where, String what) {
    return new InvalidInputException("Bad full-text query JSON: " + where + " " + what + ".");
  }
}

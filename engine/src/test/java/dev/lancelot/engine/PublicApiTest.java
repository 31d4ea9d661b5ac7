package dev.lancelot.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The engine's public API is every public type outside {@code dev.lancelot.engine.internal}
 * (docs/architecture.md §2.1). A public member of it must not take or return an internal type,
 * except the members listed here, each of which is known work (docs/architecture.md §2.1, "Where
 * the public API still shows internal types"). A new exposure fails this test; so does a listed one
 * that is gone (take it off the list and the docs).
 */
@Tag("slow")
class PublicApiTest {
  private static final String INTERNAL = "dev.lancelot.engine.internal.";

  /** Internal type (without the internal prefix) → the public members that still show it. */
  static final Map<String, Set<String>> KNOWN_EXPOSURES = Map.of();

  @Test
  void publicMembersShowOnlyTheListedInternalTypes() {
    JavaClasses engine =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lancelot.engine");
    Map<String, Set<String>> found = new TreeMap<>();
    for (JavaClass c : engine) {
      if (c.getPackageName().startsWith(INTERNAL.substring(0, INTERNAL.length() - 1))
          || !c.getModifiers().contains(JavaModifier.PUBLIC)) {
        continue;
      }
      for (JavaMember m : c.getMembers()) {
        if (!m.getModifiers().contains(JavaModifier.PUBLIC)
            && !m.getModifiers().contains(JavaModifier.PROTECTED)) {
          continue;
        }
        for (JavaClass t : signatureTypes(m)) {
          if (t.getName().startsWith(INTERNAL)) {
            found
                .computeIfAbsent(t.getName().substring(INTERNAL.length()), k -> new TreeSet<>())
                .add(c.getSimpleName() + "." + m.getName());
          }
        }
      }
    }
    assertThat(found)
        .as(
            "internal types shown by public members of the engine's API; make the type public"
                + " API (move it out of dev.lancelot.engine.internal) or keep the member out of the"
                + " API, and keep docs/architecture.md §2.1 in step")
        .isEqualTo(new TreeMap<>(KNOWN_EXPOSURES));
  }

  private static Set<JavaClass> signatureTypes(JavaMember m) {
    Set<JavaClass> types = new HashSet<>();
    if (m instanceof JavaCodeUnit cu) {
      cu.getParameterTypes().forEach(t -> types.addAll(t.getAllInvolvedRawTypes()));
      types.addAll(cu.getReturnType().getAllInvolvedRawTypes());
    } else if (m instanceof JavaField f) {
      types.addAll(f.getType().getAllInvolvedRawTypes());
    }
    return types;
  }
}

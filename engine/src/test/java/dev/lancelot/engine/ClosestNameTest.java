package dev.lancelot.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClosestNameTest {
  @Test
  void editDistanceCountsInsertionsDeletionsAndSubstitutions() {
    assertEquals(0, ClosestName.editDistance("nprobes", "nprobes"));
    assertEquals(1, ClosestName.editDistance("nprobe", "nprobes"));
    assertEquals(1, ClosestName.editDistance("nprobess", "nprobes"));
    assertEquals(1, ClosestName.editDistance("nprobas", "nprobes"));
    assertEquals(3, ClosestName.editDistance("", "abc"));
    assertEquals(3, ClosestName.editDistance("kitten", "sitting"));
  }

  @Test
  void picksTheNearestCandidateIgnoringCase() {
    List<String> names = List.of("minimum_nprobes", "maximum_nprobes", "refine_factor", "k");
    assertEquals("refine_factor", ClosestName.closest("REFINE_FACTR", names));
    assertEquals("maximum_nprobes", ClosestName.closest("max_nprobes", names));
    assertEquals("k", ClosestName.closest("K", names));
  }

  @Test
  void aTieGoesToTheFirstCandidate() {
    assertEquals("ab", ClosestName.closest("a", List.of("ab", "ac")));
  }

  @Test
  void refusesAnEmptyCandidateList() {
    assertThrows(IllegalArgumentException.class, () -> ClosestName.closest("x", List.of()));
  }
}

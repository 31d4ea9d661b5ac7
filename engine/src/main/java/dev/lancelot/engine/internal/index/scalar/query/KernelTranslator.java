package dev.lancelot.engine.internal.index.scalar.query;

import dev.lancelot.engine.expr.CompareOp;
import dev.lancelot.engine.internal.expr.eval.ArrayContainsKernel;
import dev.lancelot.engine.internal.expr.eval.BoolKernel;
import dev.lancelot.engine.internal.expr.eval.BoundColumn;
import dev.lancelot.engine.internal.expr.eval.BytesCompareKernel;
import dev.lancelot.engine.internal.expr.eval.BytesSetKernel;
import dev.lancelot.engine.internal.expr.eval.IsNullKernel;
import dev.lancelot.engine.internal.expr.eval.Kernel;
import dev.lancelot.engine.internal.expr.eval.KeyRangeKernel;
import dev.lancelot.engine.internal.expr.eval.KeySetKernel;
import dev.lancelot.engine.internal.expr.eval.LikeKernel;
import dev.lancelot.engine.internal.expr.eval.Logic;
import dev.lancelot.engine.internal.expr.eval.SubstringTests;
import dev.lancelot.engine.internal.expr.eval.ValidRowsKernel;
import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import dev.lancelot.engine.internal.index.scalar.btree.ValueCodec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Rewrites a bound filter's kernel tree (what a scan evaluates) into an {@link IndexExpr}, so an
 * index answer selects exactly the rows the scan selects: literals were already coerced to the
 * column's keys or bytes by the binder, and NOTs are pushed down to the leaves with Kleene logic's
 * De Morgan rules, a leaf's negation selecting its FALSE rows (never its NULL ones).
 */
public final class KernelTranslator {
  private final List<BoundColumn> columns;
  private final IntPredicate indexed;
  private final List<String> unanswered = new ArrayList<>();

  private KernelTranslator(List<BoundColumn> columns, IntPredicate indexed) {
    this.columns = columns;
    this.indexed = indexed;
  }

  /**
   * The outcome: an expression, or why the filter has none. A superset translation has an
   * expression and, when it is not exact, the reasons of the parts it left out.
   */
  public record Result(IndexExpr expr, String reason) {
    public boolean translated() {
      return expr != null;
    }
  }

  /** Translates {@code kernel}, whose slots index {@code columns}. */
  public static Result translate(Kernel kernel, List<BoundColumn> columns) {
    try {
      return new Result(new KernelTranslator(columns, null).rewrite(kernel, false), null);
    } catch (NotIndexable e) {
      return new Result(null, e.getMessage());
    }
  }

  /**
   * Translates {@code kernel} into an expression selecting a superset of its rows: every leaf that
   * has no index equivalent, or whose column {@code indexed} rejects (by slot), becomes "every
   * row". Sound because NOTs are pushed into the leaves first, so the rest of the tree only ANDs
   * and ORs leaf answers, and enlarging a leaf can only enlarge the result. The result's reason
   * lists the leaves left out (null when the translation is exact).
   */
  public static Result translateSuperset(
      Kernel kernel, List<BoundColumn> columns, IntPredicate indexed) {
    KernelTranslator t = new KernelTranslator(columns, indexed);
    IndexExpr expr = t.rewrite(kernel, false);
    return new Result(
        expr, t.unanswered.isEmpty() ? null : String.join("; ", new LinkedHashSet<>(t.unanswered)));
  }

  /** The rows where {@code k} is TRUE, or with {@code negate} where it is FALSE. */
  private IndexExpr rewrite(Kernel k, boolean negate) {
    if (indexed == null
        || k instanceof Logic.Not
        || k instanceof Logic.And
        || k instanceof Logic.Or
        || k instanceof Logic.Const) {
      return rewriteNode(k, negate);
    }
    try {
      return rewriteNode(k, negate);
    } catch (NotIndexable e) {
      unanswered.add(e.getMessage());
      return IndexExpr.all();
    }
  }

  private IndexExpr rewriteNode(Kernel k, boolean negate) {
    if (k instanceof Logic.Not not) {
      return rewrite(not.child(), !negate);
    } else if (k instanceof Logic.And and) {
      List<IndexExpr> terms = rewriteAll(and.terms(), negate);
      return negate ? IndexExpr.or(terms) : IndexExpr.and(terms);
    } else if (k instanceof Logic.Or or) {
      List<IndexExpr> terms = rewriteAll(or.terms(), negate);
      return negate ? IndexExpr.and(terms) : IndexExpr.or(terms);
    } else if (k instanceof Logic.Const c) {
      return switch (c) {
        case TRUE -> negate ? IndexExpr.none() : IndexExpr.all();
        case FALSE -> negate ? IndexExpr.all() : IndexExpr.none();
        case UNKNOWN -> IndexExpr.none();
      };
    } else if (k instanceof KeyRangeKernel r) {
      return leaf(r.slot(), new Condition.KeyRange(r.lo(), r.hi(), r.negated() != negate));
    } else if (k instanceof KeySetKernel s) {
      return set(s.slot(), new Condition.KeySet(s.keys(), negate), s.listHasNull(), negate);
    } else if (k instanceof BoolKernel b) {
      return set(
          b.slot(),
          new Condition.KeySet(new long[] {b.accepted() ? 1 : 0}, negate),
          b.listHasNull(),
          negate);
    } else if (k instanceof ValidRowsKernel v) {
      checkColumn(v.slot());
      return v.whenValid() != negate ? leaf(v.slot(), new Condition.Nulls(true)) : IndexExpr.none();
    } else if (k instanceof IsNullKernel n) {
      return leaf(n.slot(), new Condition.Nulls(n.negated() != negate));
    } else if (k instanceof BytesCompareKernel c) {
      return leaf(c.slot(), bytesCondition(negate ? c.op().negate() : c.op(), c.literal()));
    } else if (k instanceof BytesSetKernel s) {
      return set(s.slot(), new Condition.BytesSet(s.values(), negate), s.listHasNull(), negate);
    } else if (indexed != null && !negate && SubstringTests.of(k).isPresent()) {
      SubstringTests.Substring sub = SubstringTests.of(k).get();
      return leaf(sub.slot(), new Condition.Substring(sub.part()));
    } else if (k instanceof ArrayContainsKernel a) {
      return elements(a, negate);
    } else if (k instanceof LikeKernel l
        && indexed != null
        && !negate
        && columns.get(l.slot()).kind().isString()
        && !l.pattern().literalRuns().isEmpty()) {
      // A value matching the pattern contains each of its literal runs: substring leaves that
      // n-gram indexes narrow (superset plans only; the scan rechecks the LIKE).
      List<IndexExpr> runs = new ArrayList<>();
      for (byte[] run : l.pattern().literalRuns()) {
        runs.add(leaf(l.slot(), new Condition.Substring(run)));
      }
      return IndexExpr.and(runs);
    } else if (k instanceof LikeKernel l) {
      throw new NotIndexable(
          "LIKE on column "
              + columns.get(l.slot()).displayName()
              + " is not answered by a BTree"
              + " index");
    }
    throw new NotIndexable("the filter part " + k + " has no index equivalent");
  }

  private List<IndexExpr> rewriteAll(List<Kernel> kernels, boolean negate) {
    List<IndexExpr> out = new ArrayList<>();
    for (Kernel t : kernels) {
      out.add(rewrite(t, negate));
    }
    return out;
  }

  /**
   * {@code array_has_any} (one leaf: an element among the values) or {@code array_has_all} (a leaf
   * per value, intersected). Its FALSE rows (non-NULL lists without the values) are not in a
   * label-list index, so a negation has no index equivalent.
   */
  private IndexExpr elements(ArrayContainsKernel a, boolean negate) {
    BoundColumn c = columns.get(a.slot());
    if (negate) {
      throw new NotIndexable(
          "a negated list containment test on column "
              + c.displayName()
              + " is not answered by a label-list index");
    }
    if (c.path().size() > 1) {
      throw new NotIndexable("column " + c.displayName() + " is a nested field");
    }
    if (indexed != null && !indexed.test(a.slot())) {
      throw new NotIndexable("column " + c.displayName() + " has no label-list index");
    }
    if (a.valueCount() == 0 || (a.all() && a.unmatchable() > 0)) {
      return IndexExpr.none();
    }
    if (!a.all()) {
      Condition any =
          a.keys() != null
              ? new Condition.KeySet(a.keys(), false)
              : new Condition.BytesSet(a.bytes(), false);
      return new IndexExpr.Leaf(a.slot(), new Condition.Element(any));
    }
    List<IndexExpr> leaves = new ArrayList<>();
    if (a.keys() != null) {
      for (long key : a.keys()) {
        Condition one = new Condition.KeySet(new long[] {key}, false);
        leaves.add(new IndexExpr.Leaf(a.slot(), new Condition.Element(one)));
      }
    } else {
      for (byte[] v : a.bytes()) {
        Condition one = new Condition.BytesSet(List.of(v), false);
        leaves.add(new IndexExpr.Leaf(a.slot(), new Condition.Element(one)));
      }
    }
    return IndexExpr.and(leaves);
  }

  /** An IN list: negated with a NULL in the list, no row is ever FALSE. */
  private IndexExpr set(int slot, Condition condition, boolean listHasNull, boolean negate) {
    checkColumn(slot);
    return negate && listHasNull ? IndexExpr.none() : leaf(slot, condition);
  }

  private static Condition bytesCondition(CompareOp op, byte[] v) {
    return switch (op) {
      case EQ -> new Condition.BytesRange(v, true, v, true, false);
      case NE -> new Condition.BytesRange(v, true, v, true, true);
      case LT -> new Condition.BytesRange(null, false, v, false, false);
      case LE -> new Condition.BytesRange(null, false, v, true, false);
      case GT -> new Condition.BytesRange(v, false, null, false, false);
      case GE -> new Condition.BytesRange(v, true, null, false, false);
    };
  }

  private IndexExpr leaf(int slot, Condition condition) {
    checkColumn(slot);
    return new IndexExpr.Leaf(slot, condition);
  }

  private void checkColumn(int slot) {
    BoundColumn c = columns.get(slot);
    if (c.path().size() > 1) {
      throw new NotIndexable(
          "column " + c.displayName() + " is a nested field, which BTree indexes do not cover");
    }
    if (!ValueCodec.supports(c.kind())) {
      throw new NotIndexable(
          "column "
              + c.displayName()
              + " has type "
              + c.field().getType()
              + ", which a BTree index cannot hold");
    }
    if (indexed != null && !indexed.test(slot)) {
      throw new NotIndexable("column " + c.displayName() + " has no BTree index");
    }
  }

  private static final class NotIndexable extends RuntimeException {
    NotIndexable(String message) {
      super(message, null, false, false);
    }
  }
}

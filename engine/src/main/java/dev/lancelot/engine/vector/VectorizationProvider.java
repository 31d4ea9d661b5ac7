package dev.lancelot.engine.vector;

import dev.lancelot.engine.internal.vector.impl.ScalarKernels;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the {@link VectorKernels} implementation once per JVM (as Lucene's {@code
 * VectorizationProvider}) and logs the choice once.
 *
 * <p>System property {@value #PROPERTY}: {@code auto} (default) uses SIMD kernels when the {@code
 * jdk.incubator.vector} module is in the boot layer ({@code --add-modules jdk.incubator.vector})
 * and the hardware has at least 128-bit vectors, otherwise the scalar ones; {@code scalar} forces
 * the scalar kernels; {@code simd} asks for SIMD and logs an error (then runs scalar) when it is
 * not possible. The SIMD class is only loaded reflectively after the module check, so the engine
 * works without the module.
 */
public final class VectorizationProvider {
  public static final String PROPERTY = "lancelot.vector.impl";
  private static final String SIMD_CLASS = "dev.lancelot.engine.internal.vector.impl.PanamaKernels";
  private static final Logger LOG = LoggerFactory.getLogger(VectorizationProvider.class);

  private VectorizationProvider() {}

  private static final class Holder {
    static final VectorKernels KERNELS = choose(System.getProperty(PROPERTY, "auto"));
  }

  /** The kernels this JVM uses; the same instance on every call. */
  public static VectorKernels kernels() {
    return Holder.KERNELS;
  }

  /** A fresh scalar implementation (for tests and benchmarks that compare implementations). */
  public static VectorKernels scalar() {
    return new ScalarKernels();
  }

  /** The SIMD implementation if this JVM can run it, without logging (for tests and benchmarks). */
  public static Optional<VectorKernels> simd() {
    return Optional.ofNullable(trySimd(new StringBuilder()));
  }

  static VectorKernels choose(String requested) {
    String mode = requested.trim().toLowerCase(Locale.ROOT);
    StringBuilder why = new StringBuilder();
    switch (mode) {
      case "scalar":
        LOG.info("Vector kernels: scalar (forced by -D{}=scalar)", PROPERTY);
        return new ScalarKernels();
      case "simd":
      case "auto":
        {
          VectorKernels simd = trySimd(why);
          if (simd != null) {
            LOG.info("Vector kernels: {} (jdk.incubator.vector)", simd.name());
            return simd;
          }
          if (mode.equals("simd")) {
            LOG.error(
                "Cannot use SIMD vector kernels as -D{}=simd asks: {}. Running the scalar kernels;"
                    + " start the JVM with --add-modules jdk.incubator.vector to enable SIMD.",
                PROPERTY,
                why);
          } else {
            LOG.info("Vector kernels: scalar ({})", why);
          }
          return new ScalarKernels();
        }
      default:
        LOG.error(
            "Ignoring -D{}={}: expected auto, scalar or simd. Using auto.", PROPERTY, requested);
        return choose("auto");
    }
  }

  private static VectorKernels trySimd(StringBuilder why) {
    if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
      why.append("module jdk.incubator.vector is not present");
      return null;
    }
    try {
      Class<?> cls = Class.forName(SIMD_CLASS);
      int bits = (int) cls.getMethod("vectorBitSize").invoke(null);
      if (bits < 128) {
        why.append("preferred vector size is only ").append(bits).append(" bits");
        return null;
      }
      return (VectorKernels) cls.getConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      why.append("loading ").append(SIMD_CLASS).append(" failed: ").append(e);
      return null;
    }
  }
}

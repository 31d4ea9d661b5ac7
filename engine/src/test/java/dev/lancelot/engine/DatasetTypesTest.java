package dev.lancelot.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.LogicalTypes;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Which dataset columns can be written, and values converted into their own types. */
class DatasetTypesTest {

  @Test
  void unsignedIntegersKeepTheirRangeAndNameColumnAndValueWhenOutside() {
    assertThat(DatasetTypes.toUInt8("a", 0)).isZero();
    assertThat(Byte.toUnsignedInt(DatasetTypes.toUInt8("a", 255))).isEqualTo(255);
    assertThat((int) DatasetTypes.toUInt16("b", 65_535)).isEqualTo(65_535);
    assertThat(Integer.toUnsignedLong(DatasetTypes.toUInt32("c", 4_294_967_295L)))
        .isEqualTo(4_294_967_295L);
    assertThat(DatasetTypes.toUInt64("d", new BigDecimal("18446744073709551615"))).isEqualTo(-1L);
    assertThat(DatasetTypes.toUInt64("d", new BigDecimal("9223372036854775808")))
        .isEqualTo(Long.MIN_VALUE);

    assertThatThrownBy(() -> DatasetTypes.toUInt8("a", 256))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "value 256 does not fit column \"a\": the dataset stores it as uint8, which holds 0 to 255.");
    assertThatThrownBy(() -> DatasetTypes.toUInt16("b", -1))
        .hasMessage(
            "value -1 does not fit column \"b\": the dataset stores it as uint16, which holds 0 to 65535.");
    assertThatThrownBy(() -> DatasetTypes.toUInt16("b", 70_000))
        .hasMessageContaining("value 70000 does not fit column \"b\"");
    assertThatThrownBy(() -> DatasetTypes.toUInt32("c", 4_294_967_296L))
        .hasMessageContaining("value 4294967296 does not fit column \"c\"")
        .hasMessageContaining("uint32");
    assertThatThrownBy(() -> DatasetTypes.toUInt64("d", new BigDecimal("18446744073709551616")))
        .hasMessageContaining("value 18446744073709551616 does not fit column \"d\"");
    assertThatThrownBy(() -> DatasetTypes.toUInt64("d", new BigDecimal("-1")))
        .hasMessageContaining("value -1 does not fit");
    assertThatThrownBy(() -> DatasetTypes.toUInt64("d", new BigDecimal("1.5")))
        .hasMessageContaining("value 1.5 does not fit");
  }

  @Test
  void halfFloatsRoundToNearestAndRefuseFiniteValuesBeyondTheirRange() {
    assertThat(Float16.toFloat(DatasetTypes.toFloat16("h", 1.5f))).isEqualTo(1.5f);
    assertThat(Float16.toFloat(DatasetTypes.toFloat16("h", 65_504f))).isEqualTo(65_504f);
    assertThat(Float16.toFloat(DatasetTypes.toFloat16("h", -65_504f))).isEqualTo(-65_504f);
    // 0.1 is not a half float: the nearest one is kept (11 significant bits)
    assertThat(Float16.toFloat(DatasetTypes.toFloat16("h", 0.1f))).isEqualTo(0.099975586f);
    assertThat(Float16.toFloat(DatasetTypes.toFloat16("h", Float.NaN))).isNaN();
    assertThat(Float16.toFloat(DatasetTypes.toFloat16("h", Float.NEGATIVE_INFINITY)))
        .isEqualTo(Float.NEGATIVE_INFINITY);
    assertThatThrownBy(() -> DatasetTypes.toFloat16("h", 70_000f))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "value 70000.0 does not fit column \"h\": the dataset stores it as float16, which holds "
                + "finite values from -65504 to 65504.");
  }

  @Test
  void timestampsTruncateTowardsThePastAndNanosecondsRefuseWhatOverflows() {
    long micros = Instant.parse("2026-12-04T10:11:12.345678Z").toEpochMilli() * 1000 + 678;
    assertThat(DatasetTypes.fromMicros("t", micros, TimeUnit.SECOND))
        .isEqualTo(Instant.parse("2026-12-04T10:11:12Z").getEpochSecond());
    assertThat(DatasetTypes.fromMicros("t", micros, TimeUnit.MILLISECOND))
        .isEqualTo(Instant.parse("2026-12-04T10:11:12.345Z").toEpochMilli());
    assertThat(DatasetTypes.fromMicros("t", micros, TimeUnit.MICROSECOND)).isEqualTo(micros);
    assertThat(DatasetTypes.fromMicros("t", micros, TimeUnit.NANOSECOND)).isEqualTo(micros * 1000);
    // before the epoch: floor, not towards zero (23:59:59.5 is 23:59:59, not 00:00:00)
    assertThat(DatasetTypes.fromMicros("t", -500_000, TimeUnit.SECOND)).isEqualTo(-1);
    assertThat(DatasetTypes.fromMicros("t", -1, TimeUnit.MILLISECOND)).isEqualTo(-1);
    long lastNano = Long.MAX_VALUE / 1000;
    assertThat(DatasetTypes.fromMicros("t", lastNano, TimeUnit.NANOSECOND))
        .isEqualTo(lastNano * 1000);
    assertThat(DatasetTypes.fromMicros("t", -lastNano, TimeUnit.NANOSECOND))
        .isEqualTo(-lastNano * 1000);
    assertThatThrownBy(() -> DatasetTypes.fromMicros("t", lastNano + 1, TimeUnit.NANOSECOND))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("does not fit column \"t\"")
        .hasMessageContaining("timestamp[ns]")
        .hasMessageContaining(String.valueOf(lastNano + 1));
    assertThatThrownBy(() -> DatasetTypes.fromMicros("t", -lastNano - 1, TimeUnit.NANOSECOND))
        .hasMessageContaining("does not fit column \"t\"");
  }

  @Test
  void datesAreMidnightMillisecondsFixedBinariesAndDecimalsAreChecked() {
    int day = (int) LocalDate.of(2026, 12, 4).toEpochDay();
    assertThat(DatasetTypes.daysToMillis(day))
        .isEqualTo(Instant.parse("2026-12-04T00:00:00Z").toEpochMilli());
    assertThat(DatasetTypes.daysToMillis(-1)).isEqualTo(-86_400_000L);

    assertThat(DatasetTypes.checkFixedSize("f", new byte[16], 16)).hasSize(16);
    assertThatThrownBy(() -> DatasetTypes.checkFixedSize("f", new byte[15], 16))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "value of 15 bytes does not fit column \"f\": the dataset stores it as "
                + "fixed_size_binary(16), which holds values of exactly 16 bytes.");

    ArrowType.Decimal wide = new ArrowType.Decimal(20, 3, 256);
    assertThat(DatasetTypes.checkDecimal("x", new BigDecimal("12.5"), wide))
        .isEqualTo(new BigDecimal("12.500"));
    assertThatThrownBy(
            () -> DatasetTypes.checkDecimal("x", new BigDecimal("123456789012345678.9"), wide))
        .hasMessageContaining("does not fit column \"x\"")
        .hasMessageContaining("decimal256(20,3)");
    assertThatThrownBy(() -> DatasetTypes.checkDecimal("x", new BigDecimal("1.2345"), wide))
        .hasMessageContaining("value 1.2345 does not fit");
  }

  @Test
  void dictionaryAndExtensionColumnsAreNotWritableAndNamedAtAnyDepth() {
    Map<String, String> json = Map.of(LogicalTypes.ARROW_EXT_NAME, LogicalTypes.ARROW_JSON);
    Field doc =
        new Field("doc", new FieldType(true, ArrowType.LargeBinary.INSTANCE, null, json), null);
    Field nested =
        new Field(
            "s",
            FieldType.nullable(ArrowType.Struct.INSTANCE),
            List.of(
                new Field("x", FieldType.nullable(new ArrowType.Int(16, false)), null),
                new Field(
                    "meta",
                    new FieldType(true, ArrowType.LargeBinary.INSTANCE, null, json),
                    null)));
    Field plain =
        new Field(
            "ok",
            FieldType.nullable(ArrowType.LargeList.INSTANCE),
            List.of(new Field("item", FieldType.nullable(new ArrowType.Int(64, false)), null)));
    LanceSchema schema = LanceSchema.fromArrow(new Schema(List.of(doc, nested, plain)));
    List<LanceField> extra =
        List.of(
            LanceField.of("tag", "dict:string:int32:false", true),
            LanceField.of("bf", "fixed_size_list:lance.bfloat16:4", true));
    LanceSchema all =
        LanceSchema.fromArrow(
            new Schema(
                java.util.stream.Stream.concat(
                        schema.fields().stream().map(LanceField::toArrow),
                        extra.stream().map(LanceField::toArrow))
                    .toList()));

    assertThat(DatasetTypes.whyNotWritable(all.field("ok").orElseThrow())).isEmpty();
    assertThat(DatasetTypes.whyNotWritable(all.field("doc").orElseThrow()))
        .contains(
            "column \"doc\" has the Arrow extension type arrow.json (json), which the writer does "
                + "not produce");
    assertThat(DatasetTypes.whyNotWritable(all.field("s").orElseThrow()).orElseThrow())
        .startsWith("column \"s.meta\" has the Arrow extension type arrow.json");
    assertThat(DatasetTypes.whyNotWritable(extra.get(0)))
        .contains(
            "column \"tag\" is dictionary-encoded (dict:string:int32:false), which the writer does "
                + "not produce");
    assertThat(DatasetTypes.whyNotWritable(all.field("bf").orElseThrow()).orElseThrow())
        .startsWith("column \"bf\" has the Arrow extension type lance.bfloat16");

    DatasetTypes.checkWritable("/data/t", all, List.of("ok"));
    assertThatThrownBy(() -> DatasetTypes.checkWritable("/data/t", all, List.of("ok", "doc", "s")))
        .isInstanceOf(SchemaMismatchException.class)
        .hasMessageStartingWith(
            "Cannot write to /data/t: column \"doc\" has the Arrow extension type arrow.json (json), "
                + "which the writer does not produce; column \"s.meta\" has");
  }
}

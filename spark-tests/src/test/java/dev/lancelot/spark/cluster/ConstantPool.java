package dev.lancelot.spark.cluster;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The constant pool of a class file (JVMS 4.4), as far as {@link RuntimeJarTest} needs it: the
 * names of referenced classes, every UTF-8 entry and every string constant.
 */
record ConstantPool(List<String> classNames, List<String> utf8, List<String> strings) {
  static ConstantPool read(InputStream classFile) throws IOException {
    DataInputStream in = new DataInputStream(classFile);
    if (in.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file");
    }
    in.readUnsignedShort();
    in.readUnsignedShort();
    int count = in.readUnsignedShort();
    String[] utf8 = new String[count];
    List<Integer> classRefs = new ArrayList<>();
    List<Integer> stringRefs = new ArrayList<>();
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> utf8[i] = in.readUTF();
        case 7 -> classRefs.add(in.readUnsignedShort());
        case 8 -> stringRefs.add(in.readUnsignedShort());
        case 16, 19, 20 -> in.readUnsignedShort();
        case 15 -> {
          in.readUnsignedByte();
          in.readUnsignedShort();
        }
        case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
        case 5, 6 -> {
          in.readLong();
          i++;
        }
        default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
      }
    }
    List<String> all = new ArrayList<>();
    for (String s : utf8) {
      if (s != null) {
        all.add(s);
      }
    }
    return new ConstantPool(
        classRefs.stream().map(r -> utf8[r]).toList(),
        all,
        stringRefs.stream().map(r -> utf8[r]).toList());
  }
}

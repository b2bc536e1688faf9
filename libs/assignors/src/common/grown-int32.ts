/** `array`'s values in a new array of twice its length, or of `size` when that is more. */
export function grownInt32(array: Int32Array, size = 0): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(Math.max(size, array.length * 2));
  grown.set(array);
  return grown;
}

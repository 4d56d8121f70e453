/** A typed array of the same kind, `size` long (16 at least), holding `array`'s elements first. */
export function grow<T extends Int32Array | Float32Array | Float64Array | Uint8Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(size, 16));
  bigger.set(array);
  return bigger;
}

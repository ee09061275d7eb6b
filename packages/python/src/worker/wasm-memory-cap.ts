/**
 * Caps the linear memory of every wasm instance in this thread. Pyodide's memory is defined
 * inside its wasm module (its maximum is 4 GiB, baked in), but Emscripten grows it from
 * JavaScript with `WebAssembly.Memory.prototype.grow`: refusing a grow past the cap makes
 * `malloc` fail, which CPython turns into a `MemoryError` the guest code sees, and the
 * interpreter stays sound.
 */
let capBytes = Number.POSITIVE_INFINITY;

/** The part of `WebAssembly.Memory` used here (the project's `lib` has no WebAssembly types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

const Memory = (globalThis as unknown as { WebAssembly: { Memory: { prototype: WasmMemory } } }).WebAssembly
  .Memory;
let installed = false;

export function installWasmMemoryCap(): void {
  if (installed) return;
  installed = true;
  const grow = Memory.prototype.grow;
  Memory.prototype.grow = function cappedGrow(this: WasmMemory, pages: number): number {
    if (this.buffer.byteLength + pages * 65_536 > capBytes) {
      throw new RangeError(`wasm memory would exceed its cap of ${capBytes} bytes`);
    }
    return grow.call(this, pages);
  };
}

export function setWasmMemoryCap(bytes: number): void {
  capBytes = bytes;
}

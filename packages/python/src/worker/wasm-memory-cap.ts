/**
 * Caps the linear memory of every wasm instance in this thread. Pyodide's memory is defined
 * inside its wasm module (its maximum is 4 GiB, baked in), but Emscripten grows it from
 * JavaScript with `WebAssembly.Memory.prototype.grow`: refusing a grow past the cap makes
 * `malloc` fail, which CPython turns into a `MemoryError` the guest code sees, and the
 * interpreter stays sound.
 */
let capBytes = Number.POSITIVE_INFINITY;
let installed = false;

export function installWasmMemoryCap(): void {
  if (installed) return;
  installed = true;
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function cappedGrow(this: WebAssembly.Memory, pages: number): number {
    if (this.buffer.byteLength + pages * 65_536 > capBytes) {
      throw new RangeError(`wasm memory would exceed its cap of ${capBytes} bytes`);
    }
    return grow.call(this, pages);
  };
}

export function setWasmMemoryCap(bytes: number): void {
  capBytes = bytes;
}

import type { RepairOptions, RepairReport } from "./core/maintenance.js";
import { type OpenPalaceOptions, openPalace } from "./open-palace.js";

/**
 * Opens the palace in `dir`, repairs it and closes it. `reembed: true` with an `embedding`
 * other than the recorded one switches the palace to it (`atrium-palace repair --reembed`).
 */
export async function repairPalace(
  dir: string,
  options: Omit<OpenPalaceOptions, "create" | "allowEmbeddingChange"> & RepairOptions = {},
): Promise<RepairReport> {
  const palace = await openPalace(dir, { ...options, allowEmbeddingChange: options.reembed === true });
  try {
    return await palace.repair({ reembed: options.reembed === true });
  } finally {
    await palace.close();
  }
}

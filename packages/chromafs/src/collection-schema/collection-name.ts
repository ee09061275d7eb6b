import { IngestError } from "../errors.js";

const COLLECTION_NAME = /^(?=[A-Za-z0-9._-]{3,512}$)[A-Za-z0-9].*[A-Za-z0-9]$/;

/** Chroma's collection-name rule (3–512 of [a-zA-Z0-9._-], first and last a letter or digit), checked up front for a clear error. */
export function validateCollectionName(name: string): string {
  if (!COLLECTION_NAME.test(name)) {
    throw new IngestError(
      `Collection name ${JSON.stringify(name)} is invalid: use 3–512 characters of letters, digits, . _ -, starting and ending with a letter or digit (for example "docs" or "mintlify-docs")`,
    );
  }
  return name;
}

/** A tenant-import/1 document (or archive) that cannot be imported; the message names the place. */
export class ImportError extends Error {}

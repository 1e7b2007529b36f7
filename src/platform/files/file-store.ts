import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { InjectionToken } from 'tsyringe';

/**
 * Where uploaded bytes live, per tenant (the namespace is the tenant's schema). Keys are generated
 * by us (never user input). Courses' files and tenancy's archives (export, import) share it, so it
 * is the kernel's; the composition root registers it (src/features.ts). The default keeps files on
 * local disk; an object store (S3, GCS) implements the same calls with `<namespace>/<key>` as its
 * object name.
 */
export interface FileStore {
  put(namespace: string, key: string, data: Buffer): Promise<void>;
  /**
   * Stores the bytes of a stream as they come (never held whole in memory); resolves with their
   * number. On any error nothing is stored under the key and nothing half-written is left.
   */
  putStream(namespace: string, key: string, data: Readable | AsyncIterable<Buffer>): Promise<number>;
  /** null when the object is gone. */
  get(namespace: string, key: string): Promise<Buffer | null>;
  remove(namespace: string, key: string): Promise<void>;
  /** Removes every object of a namespace (a deleted tenant); returns how many there were. */
  removeNamespace(namespace: string): Promise<number>;
  /** Every key of a namespace: a tenant export takes what the store holds, not what rows point at. */
  list(namespace: string): Promise<string[]>;
}

export const FILE_STORE: InjectionToken<FileStore> = Symbol('FileStore');

const SAFE = /^[a-z0-9_-]+$/i;

/** DATA_DIR/files/<tenant schema>/<key>. */
export class LocalFileStore implements FileStore {
  constructor(private readonly root: string) {}

  private path(namespace: string, key: string): string {
    if (!SAFE.test(namespace) || !SAFE.test(key)) throw new Error('file store: unsafe namespace or key');
    return join(this.root, namespace, key);
  }

  async put(namespace: string, key: string, data: Buffer): Promise<void> {
    const target = this.path(namespace, key);
    await mkdir(join(this.root, namespace), { recursive: true });
    // Write then rename, so a reader never sees half a file.
    await writeFile(`${target}.part`, data);
    await rename(`${target}.part`, target);
  }

  async putStream(namespace: string, key: string, data: Readable | AsyncIterable<Buffer>): Promise<number> {
    const target = this.path(namespace, key);
    await mkdir(join(this.root, namespace), { recursive: true });
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(data, count, createWriteStream(`${target}.part`, { mode: 0o600 }));
      await rename(`${target}.part`, target);
    } catch (err) {
      await rm(`${target}.part`, { force: true });
      throw err;
    }
    return bytes;
  }

  async get(namespace: string, key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(namespace, key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async remove(namespace: string, key: string): Promise<void> {
    await rm(this.path(namespace, key), { force: true });
  }

  async removeNamespace(namespace: string): Promise<number> {
    if (!SAFE.test(namespace)) throw new Error('file store: unsafe namespace');
    const dir = join(this.root, namespace);
    const count = await readdir(dir).then(
      (names) => names.filter((n) => !n.endsWith('.part')).length,
      () => 0,
    );
    await rm(dir, { recursive: true, force: true });
    return count;
  }

  async list(namespace: string): Promise<string[]> {
    if (!SAFE.test(namespace)) throw new Error('file store: unsafe namespace');
    try {
      // Half-written `.part` files are not objects yet.
      return (await readdir(join(this.root, namespace))).filter((k) => SAFE.test(k)).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }
}

import { hash, verify, Algorithm } from '@node-rs/argon2';

/** argon2id with the library's recommended parameters (19 MiB, t=2, p=1). */
export async function hashPassword(plain: string): Promise<string> {
  return hash(plain, { algorithm: Algorithm.Argon2id });
}

export async function verifyPassword(hashed: string | null | undefined, plain: string): Promise<boolean> {
  if (!hashed) return false;
  try {
    return await verify(hashed, plain);
  } catch {
    return false;
  }
}

// A real hash to verify against when the user does not exist, so that both answers take as long.
let dummy: Promise<string> | null = null;
export async function verifyAgainstDummy(plain: string): Promise<false> {
  dummy ??= hashPassword('dummy-password-for-timing');
  await verifyPassword(await dummy, plain);
  return false;
}

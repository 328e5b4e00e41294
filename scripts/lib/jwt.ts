// Access tokens as Auth issues them (HS256 with the project's JWT secret, role authenticated), for
// benchmarks and tests that act as a signed-in user without signing in.
import { SignJWT } from 'jose';

export function accessToken(
  jwtSecret: string,
  claims: { sub: string } & Record<string, unknown>,
  expiresInSeconds = 3600,
): Promise<string> {
  return new SignJWT({ role: 'authenticated', aud: 'authenticated', ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds)
    .sign(new TextEncoder().encode(jwtSecret));
}

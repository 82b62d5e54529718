/**
 * Who is signed in: the API key lives in this tab's session storage only (gone when the tab closes), and is sent
 * only as the bearer header. What the key may do comes from `GET /v1/users/me` (its roles and permissions).
 */
const STORAGE_KEY = "platform-console.key";

export const signedInKey = (): string | null => sessionStorage.getItem(STORAGE_KEY);
export const keepKey = (key: string): void => sessionStorage.setItem(STORAGE_KEY, key);
export const forgetKey = (): void => sessionStorage.removeItem(STORAGE_KEY);

export interface Identity {
  id: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  type: "user" | "service_account";
  workspace: { id: string; name: string } | null;
  organization: { id: string; name: string } | null;
  api_key: { id: string; name: string | null } | null;
  roles: string[];
  permissions: string[];
}

/** Whether the identity may do what a route's permission names (an absent permission is refused). */
export const may = (identity: Identity, permission: string): boolean => identity.permissions.includes(permission);

// Types of release-url.mjs, for the tests that check the manifests' URIs.
export interface ReleasePackageJson {
  readonly version: string;
  readonly config?: {readonly releaseBaseUrl?: string};
}
export function releaseBaseUrl(pjson: ReleasePackageJson, env?: Readonly<Record<string, string | undefined>>): string;
export function archiveUri(pjson: ReleasePackageJson, archiveName: string, env?: Readonly<Record<string, string | undefined>>): string;

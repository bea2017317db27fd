/** Wire shape of the sensor builds (reference core §2.4; cbapi's sensor-builds.yaml). */
import { Type, type Static } from '@sinclair/typebox';

const Builds = (os: string) => Type.Array(
  Type.Object({ version_string: Type.String({ description: 'A sensor build version, as sensors report it at registration' }) }),
  { description: `Builds of the ${os} sensors the caller can see, newest first` },
);

/** cbapi reads all three keys unconditionally, so each is always there, empty when no sensor runs that OS. */
export const SensorBuilds = Type.Object({
  Windows: Builds('Windows'),
  Linux: Builds('Linux'),
  OSX: Builds('macOS'),
});
export type SensorBuilds = Static<typeof SensorBuilds>;

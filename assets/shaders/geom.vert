#version 330 core
// Every geom in one draw call: each vertex carries its geom's index, and the pose of that
// geom (3 texels: the rows of [R | p]) comes from a buffer texture updated once per frame.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in int a_geom;
uniform mat4 u_viewproj;
uniform samplerBuffer u_pose;
uniform samplerBuffer u_look;
out vec3 v_world;
out vec3 v_normal;
out vec3 v_local;
flat out int v_geom;
void main() {
  vec4 r0 = texelFetch(u_pose, 3 * a_geom);
  vec4 r1 = texelFetch(u_pose, 3 * a_geom + 1);
  vec4 r2 = texelFetch(u_pose, 3 * a_geom + 2);
  vec4 p = vec4(a_pos, 1.0);
  v_world = vec3(dot(r0, p), dot(r1, p), dot(r2, p));
  v_normal = vec3(dot(r0.xyz, a_normal), dot(r1.xyz, a_normal), dot(r2.xyz, a_normal));
  v_local = a_pos;
  v_geom = a_geom;
  gl_Position = u_viewproj * vec4(v_world, 1.0);
}

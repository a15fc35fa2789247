#version 330 core
// Lines and points of the overlays (contacts, forces, frames), coloured per vertex.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_color;
uniform mat4 u_viewproj;
uniform float u_point_size;
out vec4 v_color;
void main() {
  v_color = a_color;
  gl_PointSize = u_point_size;
  gl_Position = u_viewproj * vec4(a_pos, 1.0);
}

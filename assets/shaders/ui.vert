#version 330 core
// The 2D panel (plots, text): positions in UI pixels, (0, 0) at the top left.
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_color;
uniform vec2 u_viewport; // UI pixels covered by the framebuffer
out vec4 v_color;
void main() {
  gl_Position = vec4(2.0 * a_pos.x / u_viewport.x - 1.0, 1.0 - 2.0 * a_pos.y / u_viewport.y, 0.0, 1.0);
  v_color = a_color;
}

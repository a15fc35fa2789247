#version 330 core
// Two directional lights (a key light from above and a headlight), Blinn-Phong specular,
// and MuJoCo's builtin textures computed in place: checker (2x2 checks per repeat) and
// gradient. The look of a geom (5 texels: rgba, material, texture mode, two texture
// colours) is a buffer texture that changes only on selection. In pick mode the
// fragment's colour is the geom index + 1.
in vec3 v_world;
in vec3 v_normal;
in vec3 v_local;
flat in int v_geom;
uniform samplerBuffer u_look;
uniform vec3 u_eye;
uniform vec3 u_light_dir;
uniform int u_pick;
out vec4 frag;
void main() {
  if (u_pick != 0) {
    int id = v_geom + 1;
    frag = vec4(float(id & 255), float((id >> 8) & 255), float((id >> 16) & 255), 255.0) / 255.0;
    return;
  }
  vec4 rgba = texelFetch(u_look, 5 * v_geom);
  vec4 mat = texelFetch(u_look, 5 * v_geom + 1);
  vec4 tex = texelFetch(u_look, 5 * v_geom + 2);
  vec3 rgb1 = texelFetch(u_look, 5 * v_geom + 3).rgb;
  vec3 rgb2 = texelFetch(u_look, 5 * v_geom + 4).rgb;
  vec3 base = rgba.rgb;
  if (tex.x > 0.5 && tex.x < 1.5) {
    vec2 uv = v_local.xy * tex.yz;
    float check = mod(floor(2.0 * uv.x) + floor(2.0 * uv.y), 2.0);
    base *= mix(rgb1, rgb2, check);
  } else if (tex.x > 1.5 && tex.x < 2.5) {
    float s = clamp(0.5 + 0.5 * normalize(v_local).z, 0.0, 1.0);
    base *= mix(rgb2, rgb1, s);
  } else if (tex.x > 2.5) {
    base *= rgb1;
  }
  vec3 n = normalize(v_normal);
  vec3 view = normalize(u_eye - v_world);
  if (dot(n, view) < 0.0) n = -n;
  vec3 l = normalize(-u_light_dir);
  float key = max(dot(n, l), 0.0);
  float head = max(dot(n, view), 0.0);
  float spec = pow(max(dot(n, normalize(l + view)), 0.0), 1.0 + 127.0 * mat.y) * mat.x;
  vec3 lit = base * (0.25 + 0.5 * key + 0.35 * head) + vec3(spec) * 0.5 + base * mat.z;
  frag = vec4(min(lit, vec3(1.0)), rgba.a);
}
